#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# recorderd start/status/rotate/reload/snapshot/stop on the host's tracefs, in an
# instance of its own, with a private socket and output directory: config errors name
# their line, a second start says so, status shows bytes growing, rotation and reload
# work live, flight-mode snapshots hold the newest ring-size of events (what earlier
# snapshots read included) without holes,
# SIGTERM finishes the file, and every file reads back (trace-cmd report, libtracecmd)
# with every marker once.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 020

# --- configuration errors are refused before anything starts ------------------------
conf=$TMP/recorderd.conf
printf 'mode = stream\n# comment\nrotate_size = 64M\nbogus_key = 1\n' >"$conf"
out=$(recd_start -c "$conf" 2>&1); rc=$?
t_eq "bad key: start fails" "$rc" 1
t_eq "bad key: error names file and line" "$out" "recorderd: $conf:4: unknown key 'bogus_key'"
printf 'buffer_kb = lots\n' >"$conf"
out=$(recd_start -c "$conf" 2>&1)
t_eq "bad value: error names line and value" "$out" \
	"recorderd: $conf:1: buffer_kb: 'lots' is not a non-negative integer"
out=$(recd_start --mode sideways 2>&1)
t_eq "bad CLI value" "$out" \
	"recorderd: command line: mode: 'sideways' is not one of: stream, flight"
out=$(recd status 2>&1); rc=$?
t_eq "status without a daemon: exit 3" "$rc" 3
t_eq "status without a daemon: message" "$out" "recorderd: not running (nothing listens on $SOCK)"

# --- stream mode ----------------------------------------------------------------------
cat >"$conf" <<EOF
events = sched:sched_switch
rotate_size = 0
period_ms = 50
sync_ms = 200
EOF
out=$(recd_start -c "$conf" 2>&1); rc=$?
t_eq "start returns 0 once live" "$rc" 0
t_check "start says where it writes" grep -q "^recorderd: capturing (pid [0-9]*, stream mode) to $OUT/trace-" <<<"$out"
pid=$(recd_pid)
t_check "daemon answers with its pid" test -n "$pid"
t_check "control socket is 0600" test "$(stat -c %a "$SOCK")" = 600

out=$(recd_start -c "$conf" 2>&1); rc=$?
t_eq "second start: exit 1" "$rc" 1
t_eq "second start: says so" "$out" "recorderd: already running (pid $pid, socket $SOCK)"

mark m 1 500
sleep 0.5
b1=$(recd_json raw_bytes)
mark m 501 1000
sleep 0.5
b2=$(recd_json raw_bytes)
t_check "status: bytes grow ($b1 -> $b2)" test "$b2" -gt "$b1"
st=$(recd status)
t_check "status: state line" grep -q "^recorderd: running (pid $pid, stream mode" <<<"$st"
t_check "status: events" grep -q "^  events: *sched:sched_switch$" <<<"$st"
t_check "status: output file" grep -q "^  output: *$OUT/trace-.*\.dat$" <<<"$st"
t_check "status: per-CPU table" grep -qE "^ +0 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ " <<<"$st"
t_check "status --json parses" python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d['state']=='running' and len(d['cpus'])>=1" "$(recd status --json)"
# Any CPU count: an answer holds ~1160 CPUs; past that the client asks in pages.
# Here pages of one CPU, on the socket and through the client.
ncpu=$(recd_json cpus | "$PY" -c 'import ast,sys; print(len(ast.literal_eval(sys.stdin.read())))')
t_check "status: one answer holds every CPU without a page asked" \
	grep -q "ncpus=$ncpu total=$ncpu first=0 " <<<"$(ctl_status_raw "$SOCK")"
last=$((ncpu - 1))
t_check "status: a page of one CPU from the last ($(ctl_status_raw "$SOCK" $last 1))" \
	grep -q "ncpus=1 total=$ncpu first=$last cpus=$last$" <<<"$(ctl_status_raw "$SOCK" $last 1)"
cpus() { "$PY" -c 'import json,sys; print([c["cpu"] for c in json.load(sys.stdin)["cpus"]])'; }
t_eq "status: the client pages (one CPU an answer) to the same CPU list" \
	"$(RECORDERD_STATUS_PAGE_CPUS=1 recd status --json | cpus)" "$(recd status --json | cpus)"

out=$(recd snapshot 2>&1); rc=$?
t_eq "snapshot in stream mode: refused" "$rc" 1
t_check "snapshot in stream mode: says why" grep -q "needs mode = flight" <<<"$out"

first=$(recd_json output_file)
out=$(recd rotate); rc=$?
t_eq "rotate: exit 0" "$rc" 0
t_check "rotate: names both files" grep -q "$first finished; now writing $OUT/" <<<"$out"
mark m 1001 1500
sleep 0.3

# reload: a live key applies, a bad file is refused and the daemon keeps running
echo "disk_budget = 1G" >>"$conf"
echo "rotate_time = 1h" >>"$conf"
out=$(recd reload); rc=$?
t_eq "reload: exit 0" "$rc" 0
t_check "reload: applied" grep -q "configuration reloaded" <<<"$out"
t_check "reload: status shows the budget" grep -q "disk budget: .* of 1.00 GiB" <<<"$(recd status)"
echo "mode = maybe" >>"$conf"
out=$(recd reload 2>&1); rc=$?
t_eq "bad reload: exit 1" "$rc" 1
t_check "bad reload: names the line" grep -q "reload rejected, old configuration kept: $conf:7: mode" <<<"$out"
t_eq "bad reload: still running" "$(recd_json state)" running
sed -i '$d' "$conf"
# a change to what is captured applies by starting the next file
sed -i 's/^events = .*/events = sched:sched_switch, sched:sched_wakeup/' "$conf"
before=$(recd_json output_file)
out=$(recd reload); rc=$?
t_eq "reload with new events: exit 0" "$rc" 0
t_check "reload with new events: new file" grep -q "capture restarted in a new file" <<<"$out"
t_eq "reload with new events: status shows them" "$(recd_json events)" \
	"sched:sched_switch,sched:sched_wakeup"
t_check "reload with new events: another output file" test "$(recd_json output_file)" != "$before"
# a key that needs a restart is kept, and the answer says so
echo "mode = flight" >>"$conf"
out=$(recd reload); rc=$?
t_check "reload of a restart-only key: says so" grep -q "changing 'mode' needs a restart (kept old)" <<<"$out"
t_eq "reload of a restart-only key: mode kept" "$(recd_json mode)" stream
sed -i '$d' "$conf"
kill -HUP "$pid"
sleep 0.3
t_eq "SIGHUP: still running" "$(recd_json state)" running
mark m 1501 2000
sleep 0.3

out=$(recd stop); rc=$?
t_eq "stop: exit 0" "$rc" 0
t_check "stop: reports the last file" grep -q "stopped; last file $OUT/" <<<"$out"
for ((i = 0; i < 20; i++)); do gone "$pid" && break; sleep 0.1; done
t_check "stop: daemon gone" gone "$pid"
t_check "stop: socket removed" test ! -e "$SOCK"
nfiles=$(ls "$OUT"/*.dat | wc -l)
t_check "stream: at least 2 files after rotate ($nfiles)" test "$nfiles" -ge 2
all=""
for f in "$OUT"/*.dat; do
	t_check "report reads $(basename "$f")" report_ok "$f"
	t_check "libtracecmd reads $(basename "$f")" grep -q ": valid, [0-9]* events; nothing to do" \
		<<<"$("$RECORDERD" recover --check "$f")"
	all+="$(markers "$f" m)"$'\n'
done
t_check "stream: at least 3 files (rotate + reload)" test "$nfiles" -ge 3
t_eq "stream: 2000 markers, each once, in order" "$(grep -c . <<<"$all")" 2000
t_eq "stream: markers 1..2000 without holes" "$(grep . <<<"$all" | md5sum)" "$(seq 1 2000 | md5sum)"

# --- SIGTERM finishes the file ----------------------------------------------------------
rm -rf "$OUT"
recd_start -e sched:sched_switch -O period_ms=50 -O pidfile="$TMP/recorderd.pid" >/dev/null
pid=$(recd_pid)
t_eq "pidfile holds the daemon's pid" "$(cat "$TMP/recorderd.pid" 2>/dev/null)" "$pid"
mark t 1 700
sleep 0.3
kill -TERM "$pid"
# well inside the unit's TimeoutStopSec=60, with room for a loaded 2-CPU machine
for ((i = 0; i < 300; i++)); do gone "$pid" && break; sleep 0.1; done
t_check "SIGTERM: exits within 30 s" gone "$pid"
t_check "SIGTERM: pidfile removed" test ! -e "$TMP/recorderd.pid"
f=$(ls "$OUT"/*.dat)
t_check "SIGTERM: file reads" report_ok "$f"
t_eq "SIGTERM: all markers" "$(markers "$f" t | md5sum)" "$(seq 1 700 | md5sum)"

# --- flight mode: snapshots without stopping, no holes, no overlap ---------------------
rm -rf "$OUT"
out=$(recd_start --mode flight -b 4096 -e sched:sched_switch 2>&1); rc=$?
t_eq "flight: start" "$rc" 0
mark f 1 300
t_eq "flight: nothing read before a snapshot" "$(recd_json raw_bytes)" 0
snap1=$TMP/snap1.dat
out=$(recd snapshot -o "$snap1" 2>&1); rc=$?
t_eq "snapshot 1: exit 0" "$rc" 0
t_check "snapshot 1: prints its path" grep -q "^$snap1$" <<<"$out"
mark f 301 600
out=$(cd "$TMP" && "$RECORDERD" snapshot --socket "$SOCK" -o snap2.dat 2>&1)
t_eq "snapshot 2 (relative path): exit 0" "$?" 0
snap2=$TMP/snap2.dat
out=$(recd snapshot -o "$snap2" 2>&1); rc=$?
t_eq "snapshot over an existing file: refused" "$rc" 1
t_check "snapshot over an existing file: says so" grep -q "exists; not overwriting" <<<"$out"
t_eq "flight: still running" "$(recd_json state)" running
t_eq "flight: 2 snapshots counted" "$(recd_json snapshots)" 2
# its compact copy cannot be made (the name it takes is a directory): the snapshot is
# complete all the same, and stays
mkdir "$TMP/.snap5.dat.finishing"
out=$(recd snapshot -o "$TMP/snap5.dat" 2>&1); rc=$?
t_eq "snapshot without its compact copy: exit 0" "$rc" 0
t_check "snapshot without its compact copy: the file stays" test -s "$TMP/snap5.dat"
rmdir "$TMP/.snap5.dat.finishing"
# snapshots taken while markers keep arriving: together they hold each marker once
writer h 1 20000 10000 >/dev/null &
wpid=$!
sleep 0.6
recd snapshot -o "$TMP/snap3.dat" >/dev/null 2>&1
sleep 0.6
recd snapshot -o "$TMP/snap4.dat" >/dev/null 2>&1
wait "$wpid"
t_eq "flight: still running after 4 snapshots" "$(recd_json state)" running
t_eq "flight: tracing never stopped (no restart)" "$(recd_json output_file)" ""
mark f 601 700
t_eq "flight: stop" "$(recd stop >/dev/null 2>&1; echo $?)" 0
t_check "snapshot 1 reads" report_ok "$snap1"
t_check "snapshot 2 reads" report_ok "$snap2"
t_eq "snapshot 1 = markers 1..300" "$(markers "$snap1" f | md5sum)" "$(seq 1 300 | md5sum)"
# the ring had room for both batches: the second snapshot holds the first one's too
t_eq "snapshot 2 = markers 1..600 (history kept)" "$(markers "$snap2" f | md5sum)" \
	"$(seq 1 600 | md5sum)"
t_check "snapshot without its compact copy reads" report_ok "$TMP/snap5.dat"
t_eq "snapshot without its compact copy = markers 1..600" \
	"$(markers "$TMP/snap5.dat" f | md5sum)" "$(seq 1 600 | md5sum)"
last=$(ls "$OUT"/*.dat 2>/dev/null | tail -n 1)
t_check "stop in flight mode keeps the buffer in a last file" test -n "$last"
[ -n "$last" ] && t_eq "last flight file = markers 1..700" "$(markers "$last" f | md5sum)" \
	"$(seq 1 700 | md5sum)"
for f in "$TMP/snap3.dat" "$TMP/snap4.dat" "$last"; do
	t_eq "$(basename "$f"): markers in order, none twice" \
		"$(markers "$f" h | md5sum)" "$(markers "$f" h | sort -n -u | md5sum)"
done
t_eq "snapshots during writes: together markers 1..20000, no hole" \
	"$(for f in "$TMP/snap3.dat" "$TMP/snap4.dat" "$last"; do markers "$f" h; done |
	   sort -n -u | md5sum)" "$(seq 1 20000 | md5sum)"

# --- under systemd (Type=notify): READY, WATCHDOG pings, STOPPING, journal prefixes ----
rm -rf "$OUT"
notify_listener "$TMP/notify.sock" "$TMP/notify.log" 15 &
lpid=$!
for ((i = 0; i < 50; i++)); do [ -S "$TMP/notify.sock" ] && break; sleep 0.05; done
NOTIFY_SOCKET=$TMP/notify.sock WATCHDOG_USEC=400000 \
	"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$OUT" 2>"$TMP/journal.log" &
dpid=$!
for ((i = 0; i < 50; i++)); do grep -q READY=1 "$TMP/notify.log" 2>/dev/null && break; sleep 0.1; done
t_check "systemd: READY=1 sent once live" grep -q "^READY=1|STATUS=capturing to $OUT/" "$TMP/notify.log"
t_check "systemd: stays in the foreground" test -d "/proc/$dpid"
sleep 1.2
pings=$(grep -c "^WATCHDOG=1$" "$TMP/notify.log")
t_check "systemd: watchdog pings every WatchdogSec/2 ($pings in 1.2 s)" test "$pings" -ge 4
kill -TERM "$dpid"
wait "$dpid"; rc=$?
wait "$lpid"
t_eq "systemd: SIGTERM exit 0" "$rc" 0
t_check "systemd: STOPPING=1 sent" grep -q "^STOPPING=1" "$TMP/notify.log"
t_check "systemd: log lines carry journal <N> prefixes" grep -q "^<6>" "$TMP/journal.log"

t_done
