#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Daemon cost and snapshot speed (figures only, never pass/fail), on the host's tracefs
# in an instance of its own:
#   - recorderd CPU (all threads, from /proc/PID/task/*/schedstat) while markers arrive
#     at field rates (1 and 4 MB/s of pages) and at a flood, in stream mode (zstd and
#     none) and flight mode; as % of one core and as a ratio against a peer measured in
#     the same run: one `cat per_cpu/cpuN/trace_pipe_raw > /dev/null` per CPU, the
#     cheapest possible reader (it moves pages and writes nothing to disk);
#   - time to snapshot a 64 MiB flight-recorder buffer.
# The stream figures go through bench_row (tests/bench/lib.sh) as daemon.*.cpu_pct, ours =
# recorderd's % of a core, peer = the cats' at the same marker rate (the snapshot time has
# no peer to run, so it is printed only).
#   tests/bench/daemon_bench.sh [--smoke]   (--smoke: 1 s, the 1 MB/s pair only)
#   SECS=N  seconds per measurement (default 8)
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"
source "$(dirname "$0")/lib.sh"

smoke=0
[ "${1:-}" = --smoke ] && smoke=1 && SECS=${SECS:-1}
SECS=${SECS:-8}
recd_setup bench
ncpu=$(nproc)

cpu_ns() {	# CPU time of pid $1 and its threads, ns
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}

# rate_writer EVENTS_PER_S SECS: ~128-byte markers (a 1 MB/s stream = ~8200/s)
rate_writer() {
	writer b 1 $(($1 * $2)) "$1" 100 >/dev/null
}

# measure LABEL RATE(0 = flood) START-ARGS...: daemon CPU over SECS seconds of writes
measure() {
	local label=$1 rate=$2 pid c0 c1 b0 b1 t0 t1 lost pct mbs
	shift 2
	rm -rf "$OUT"
	recd_start "$@" >/dev/null || { echo "# $label: start failed"; return; }
	pid=$(recd_pid)
	sleep 0.5
	c0=$(cpu_ns "$pid"); b0=$(recd_json raw_bytes); t0=$(date +%s%N)
	if [ "$rate" -gt 0 ]; then
		rate_writer "$rate" "$SECS"
	else
		timeout "$SECS" taskset -c 0 "$PY" -c "
import os
fd = os.open('$TRACEFS/instances/$INST/trace_marker', os.O_WRONLY)
m = b'b ' + b'x' * 110 + b'\n'
while True:
    os.write(fd, m)" 2>/dev/null
	fi
	c1=$(cpu_ns "$pid"); b1=$(recd_json raw_bytes); t1=$(date +%s%N)
	lost=$(recd status --json | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(sum(c["lost"]+c["overrun"] for c in d["cpus"]))')
	recd stop >/dev/null
	pct=$(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.3f", 100 * c / t }')
	mbs=$(awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.2f", b / t * 1000 }')
	printf '%-34s %8s MB/s  recorderd %7s%% of a core  %s %s\n' "$label" "$mbs" "$pct" \
		"$([ "$label" = "${label#flight}" ] && echo lost || echo "overwritten (flight)")" "$lost"
	LAST_PCT=$pct
}

# Peer: one cat per CPU on trace_pipe_raw of the same instance, the same marker rate;
# its CPU time comes from wait4() of each cat (exact, and cats that exit still count).
peer() {
	local rate=$1 pct
	echo 1 >"$TRACEFS/instances/$INST/tracing_on"
	pct=$("$PY" - "$TRACEFS/instances/$INST" "$ncpu" "$rate" "$SECS" <<'EOF'
import os, signal, subprocess, sys, time
inst, ncpu, rate, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
cats = [subprocess.Popen(["cat", "%s/per_cpu/cpu%d/trace_pipe_raw" % (inst, c)],
                         stdout=subprocess.DEVNULL) for c in range(ncpu)]
time.sleep(0.5)
os.sched_setaffinity(0, {0})
fd = os.open(inst + "/trace_marker", os.O_WRONLY)
msg = b"b 1 " + b"x" * 100 + b"\n"
t0 = time.time()
n = 0
while time.time() - t0 < secs:
    os.write(fd, msg)
    n += 1
    if n % 20 == 0:
        ahead = n / rate - (time.time() - t0)
        if ahead > 0:
            time.sleep(ahead)
t1 = time.time()
time.sleep(0.3)
cpu = 0.0
for c in cats:
    os.kill(c.pid, signal.SIGTERM)
    _, _, ru = os.wait4(c.pid, 0)
    cpu += ru.ru_utime + ru.ru_stime
print("%.3f" % (100 * cpu / (t1 - t0)))
EOF
)
	printf '%-34s %8s       cat peer  %7s%% of a core\n' "peer: cat trace_pipe_raw x$ncpu" "" "$pct"
	PEER_PCT=$pct
}

echo "# recorderd daemon benchmark: $(uname -r), $ncpu CPUs, $SECS s per figure"

# row METRIC PEER_PCT: the last measure() against its cat peer
row() {
	if [ -n "${LAST_PCT:-}" ] && [ -n "${2:-}" ]; then
		bench_row "$1" "$LAST_PCT" "$2" "" "%core"
	else
		echo "#   $1: not measured"
	fi
	LAST_PCT=
}

peer 8200
p1=$PEER_PCT
measure "stream zstd @ ~1 MB/s" 8200 -O period_ms=200
row daemon.stream_zstd_1mbs.cpu_pct "$p1"
if [ $smoke = 1 ]; then
	t_ok "benchmark ran (figures above)"
	t_done
fi
peer 33000
p4=$PEER_PCT
measure "stream zstd @ ~4 MB/s" 33000 -O period_ms=200
row daemon.stream_zstd_4mbs.cpu_pct "$p4"
measure "stream none @ ~4 MB/s" 33000 -C none -O period_ms=200
row daemon.stream_none_4mbs.cpu_pct "$p4"
measure "flight @ ~4 MB/s" 33000 --mode flight -b 8192
measure "stream zstd, flood (1 writer)" 0 -b 8192
measure "stream none, flood (1 writer)" 0 -C none -b 8192

# Triggers in flight mode cost the producer nothing beyond the tracepoints they use:
# the time a signal (SIGUSR1, handled: the kernel filter drops it) and a top-level
# trace_marker write take, flight mode without triggers vs with every kind armed
# (marker:REGEX only where copy_trace_marker exists; every marker is then copied to
# the trigger instance and matched by the daemon: that cost is real and shows here).
# ns per operation over N operations, best of 3 runs each.
producer_ns() {	# KIND N
	"$PY" - "$1" "$2" "$TRACEFS/trace_marker" <<'EOF'
import os, signal, sys, time
kind, n, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]
signal.signal(signal.SIGUSR1, lambda s, f: None)
os.sched_setaffinity(0, {0})
fd = os.open(marker, os.O_WRONLY)
best = None
for _ in range(3):
    t0 = time.perf_counter_ns()
    if kind == "signal":
        for _ in range(n):
            os.kill(os.getpid(), signal.SIGUSR1)
    else:
        for _ in range(n):
            os.write(fd, b"bench trigger cost, never matches\n")
    t = (time.perf_counter_ns() - t0) / n
    best = t if best is None or t < best else best
print("%.1f" % best)
EOF
}
trig_args=(-T signal:SIGSEGV,SIGABRT,SIGBUS -T oom -T hung-task -T command:bench)
[ -e "$TRACEFS/options/copy_trace_marker" ] && trig_args+=(-T "marker:^NEVER-MATCHES")
nop=$([ $smoke = 1 ] && echo 2000 || echo 200000)
declare -A sig mrk dcpu
for with in 0 1; do
	rm -rf "$OUT"
	if [ $with = 1 ]; then
		recd_start --mode flight -b 1024 "${trig_args[@]}" >/dev/null || continue
	else
		recd_start --mode flight -b 1024 >/dev/null || continue
	fi
	pid=$(recd_pid)
	c0=$(cpu_ns "$pid")
	sig[$with]=$(producer_ns signal "$nop")
	mrk[$with]=$(producer_ns marker "$nop")
	dcpu[$with]=$(( ($(cpu_ns "$pid") - c0) / 1000000 ))
	recd stop >/dev/null
done
if [ -n "${sig[1]:-}" ] && [ -n "${sig[0]:-}" ]; then
	printf '%-34s signal %s ns (without %s), trace_marker write %s ns (without %s), daemon %s ms CPU (without %s)\n' \
		"flight + triggers, producer" "${sig[1]}" "${sig[0]}" "${mrk[1]}" "${mrk[0]}" \
		"${dcpu[1]}" "${dcpu[0]}"
	bench_row daemon.flight_triggers.signal_ns "${sig[1]}" "${sig[0]}" "<=1.1" "ns"
	bench_row daemon.flight_triggers.marker_ns "${mrk[1]}" "${mrk[0]}" "" "ns"
fi

# Snapshot of a full 64 MiB buffer (one CPU's ring, filled until it overwrites).
rm -rf "$OUT"
if recd_start --mode flight -b 65536 >/dev/null; then
	timeout 60 taskset -c 0 "$PY" -c "
import os, time
fd = os.open('$TRACEFS/instances/$INST/trace_marker', os.O_WRONLY)
st = '$TRACEFS/instances/$INST/per_cpu/cpu0/stats'
m = b's ' + b'x' * 200 + b'\n'
n = 0
while True:
    os.write(fd, m)
    n += 1
    if n % 20000 == 0 and 'overrun: 0' not in open(st).read():
        break"
	t0=$(date +%s%N)
	out=$(recd snapshot -o "$TMP/snap.dat" 2>&1)
	t1=$(date +%s%N)
	raw=$(grep -o "snapshot of [0-9.]* [KMG]iB" <<<"$out")
	size=$(stat -c %s "$TMP/snap.dat" 2>/dev/null)
	ms=$(((t1 - t0) / 1000000))
	printf '%-34s %s, file %s bytes, %d ms (tracing kept running; incl. metadata)\n' \
		"snapshot of a full 64 MiB ring" "${raw#snapshot of }" "$size" "$ms"
	recd stop >/dev/null
fi
t_ok "benchmark ran (figures above)"
t_done
