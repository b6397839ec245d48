#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kill -9 of the daemon at random points of a capture (host tracefs, own instance):
# numbered markers are written at a steady rate from one CPU; after each kill the file
# must read back with `trace-cmd report` holding markers 1..R, each once, in order, with
# R covering every marker written up to one sync interval (+ one page fill + one
# wake-up period) before the kill. `recorderd recover` must then find the file valid
# or repair it without losing any of those markers. Some kills land while the daemon
# is still starting: the file may then hold no data, but recover must say so cleanly.
# Each restart takes over the instance the killed daemon left (025-daemon-takeover.sh):
# a run's file may begin with the unread markers of the run before, so every run has
# a tag of its own.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 021
N=${KILL9_RUNS:-50}
EARLY=$((N / 5))	# kills while `start` is still setting up
SYNC_MS=100
PERIOD_MS=50
SLACK_MS=800		# one page fill at this rate + scheduling on a loaded 2-CPU box

cat >"$TMP/writer.py" <<'EOF'
import os, sys, time
# Writes "TAG N" markers at ~RATE/s; every 50 markers logs "N wallclock" (after the write).
fd = os.open(sys.argv[1], os.O_WRONLY)
log = open(sys.argv[2], "w", buffering=1)
rate = float(sys.argv[3])
tag = sys.argv[4].encode()
n = 0
t0 = time.time()
while True:
    n += 1
    os.write(fd, b"%s %d\n" % (tag, n))
    if n % 50 == 0:
        log.write("%d %.6f\n" % (n, time.time()))
        ahead = n / rate - (time.time() - t0)
        if ahead > 0:
            time.sleep(ahead)
EOF

# check_run RUN FILE KILLTIME: prints "FAIL why" or "OK summary".
check_run() {
	local run=$1 f=$2 tk=$3 want why="" r r2 out rc wlog=$TMP/wlog.$1 rep=$TMP/rep.$1
	# markers surely written before (kill - sync - period - slack)
	want=$(awk -v t="$tk" -v w=$((SYNC_MS + PERIOD_MS + SLACK_MS)) \
		'$2 <= t - w / 1000.0 { n = $1 } END { print n + 0 }' "$wlog" 2>/dev/null)
	want=${want:-0}
	report_to "$f" "$rep" || why="trace-cmd report fails: $(head -c 300 "$rep.err")"
	r=$(markers_in "$rep" "k$run" | grep -c .)
	[ -z "$why" ] && ! markers_in "$rep" "k$run" | is_seq "$r" && why="markers not 1..$r in order"
	[ -z "$why" ] && [ "$r" -lt "$want" ] && why="read $r markers < $want written a sync before the kill"
	out=$("$RECORDERD" recover "$f" 2>&1); rc=$?
	r2=$r
	if [ -z "$why" ] && [ $rc -gt 1 ]; then
		why="recover failed: $out"
	elif [ -z "$why" ] && [ $rc -eq 1 ]; then
		report_to "$f" "$rep" || why="report fails after recover: $(head -c 300 "$rep.err")"
		r2=$(markers_in "$rep" "k$run" | grep -c .)
		[ -z "$why" ] && [ "$r2" -lt "$r" ] && why="recover lost markers ($r -> $r2)"
		[ -z "$why" ] && ! markers_in "$rep" "k$run" | is_seq "$r2" &&
			why="after recover: markers not 1..$r2"
	fi
	if [ -n "$why" ]; then
		echo "FAIL $why"
		cp "$f" "$TOP/build/test-logs/021-run$run.dat" 2>/dev/null
	else
		echo "OK $(tail -n 1 "$wlog" 2>/dev/null | cut -d' ' -f1) written by the kill; read $r (>= $want); recover:$(cut -d: -f2- <<<"$out" | head -n 1)"
	fi
	rm -f "$f" "$rep" "$rep.err"
}

checks=()
fails=0
start_ok=0
for ((run = 1; run <= N; run++)); do
	rm -rf "$OUT" "$TMP/wlog"
	opts=(-O period_ms=$PERIOD_MS -O sync_ms=$SYNC_MS -O rotate_size=0)
	if [ "$run" -le "$EARLY" ]; then
		# kill somewhere inside start-up: before, during or after metadata is written
		"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$OUT" --foreground \
			"${opts[@]}" >/dev/null 2>&1 &
		dpid=$!
		sleep "0.$(printf '%03d' $((RANDOM % 600)))"
		kill -9 "$dpid" 2>/dev/null
		wait "$dpid" 2>/dev/null
		f=$(ls "$OUT"/*.dat 2>/dev/null | head -n 1)
		if [ -z "$f" ]; then
			continue	# killed before the file existed: nothing to check
		fi
		out=$("$RECORDERD" recover "$f" 2>&1); rc=$?
		if [ $rc -gt 1 ] && ! grep -q "nothing to save\|no BUFFER section" <<<"$out"; then
			t_fail "run $run (early kill)" "recover: $out"
			fails=$((fails + 1))
		fi
		continue
	fi
	if ! out=$(recd_start "${opts[@]}" 2>&1); then
		t_fail "run $run" "start failed: $out"
		fails=$((fails + 1))
		continue
	fi
	start_ok=$((start_ok + 1))
	dpid=$(recd_pid)
	taskset -c 0 "$PY" "$TMP/writer.py" "$TRACEFS/instances/$INST/trace_marker" \
		"$TMP/wlog" 5000 "k$run" &
	wpid=$!
	sleep "$(printf '%d.%03d' $((r = 150 + RANDOM % 800, r / 1000)) $((r % 1000)))"
	tk=$(date +%s.%N)
	kill -9 "$dpid"
	kill "$wpid"
	wait "$wpid" 2>/dev/null
	# Gone before the next start, which a dying daemon's lock would refuse ("already
	# running": its leader thread a zombie, the lock held by threads still exiting).
	for ((i = 0; i < 500; i++)); do gone "$dpid" && break; sleep 0.02; done
	f=$TMP/run$run.dat
	mv "$(ls "$OUT"/*.dat | head -n 1)" "$f"
	mv "$TMP/wlog" "$TMP/wlog.$run" 2>/dev/null
	# Checked in the background (at most 2 at a time) while the next run goes on.
	check_run "$run" "$f" "$tk" >"$TMP/res.$run" 2>&1 &
	checks+=($!)
	if [ "${#checks[@]}" -ge 2 ]; then
		wait "${checks[0]}"
		checks=("${checks[@]:1}")
	fi
done
wait
for ((run = EARLY + 1; run <= N; run++)); do
	[ -f "$TMP/res.$run" ] || continue
	res=$(cat "$TMP/res.$run")
	if [ "${res%% *}" = OK ]; then
		echo "# run $run: ${res#OK }"
	else
		t_fail "run $run" "${res#FAIL }"
		fails=$((fails + 1))
	fi
done
t_eq "kill -9 at $N points: every file reads, no marker lost" "$fails" 0
t_check "most starts succeeded ($start_ok)" test "$start_ok" -ge $((N - EARLY - 2))
t_done
