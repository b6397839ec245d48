#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Flight-mode triggers on the host's tracefs (issue: the flight recorder saves itself
# when something goes wrong). Each kind fires on a real cause - a process killed by
# SIGSEGV, a marker, a memory hog under a memory cgroup limit, a task stuck in D state
# on a frozen filesystem with a 1 s hung-task timeout, `recorderd trigger` - and leaves
# a trig-*.dat whose history before the trigger (every marker written before it), the
# record naming the trigger and the markers of the window after it are checked with
# trace-cmd report. Then a storm of 100 triggers: the cooldown gives one file, and
# trigger_max_files caps what is kept. Idle, triggers cost no wake-up.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 027
TRIG_INST=recorderd_trig_$INST
HUNG=/proc/sys/kernel/hung_task_timeout_secs
WARN=/proc/sys/kernel/hung_task_warnings
hung_old=$(cat $HUNG 2>/dev/null) warn_old=$(cat $WARN 2>/dev/null)
EXTRA_CLEANUP='
	[ -n "${FROZEN:-}" ] && fsfreeze --unfreeze "$FROZEN" 2>/dev/null
	[ -n "$hung_old" ] && echo "$hung_old" >$HUNG 2>/dev/null
	[ -n "$warn_old" ] && echo "$warn_old" >$WARN 2>/dev/null
	mountpoint -q "$TMP/mnt" 2>/dev/null && umount "$TMP/mnt"
	[ -n "${CG:-}" ] && rmdir "$CG" 2>/dev/null
	rmdir "$TRACEFS/instances/$TRIG_INST" 2>/dev/null'

conf=$TMP/recorderd.conf
triggers="trigger = signal:SIGSEGV,SIGABRT
trigger = oom
trigger = hung-task
trigger = command:snap"
have_copy=0
[ -e "$TRACEFS/options/copy_trace_marker" ] && have_copy=1 &&
	triggers="$triggers
trigger = marker:^TRIGGER-ME"
cat >"$conf" <<EOF
mode = flight
buffer_kb = 1024
trigger_post_ms = 1500
trigger_cooldown_ms = 0
$triggers
EOF

# --- bad trigger configurations are refused before anything starts -----------------
out=$(recd_start -c "$conf" -T signal:SIGNOPE 2>&1); rc=$?
t_eq "bad trigger: start fails" "$rc" 1
t_eq "bad trigger: says why" "$out" \
	"recorderd: command line: trigger 'signal:SIGNOPE': 'SIGNOPE' is not a signal"
out=$(recd_start -m stream -T oom 2>&1); rc=$?
t_eq "trigger in stream mode: refused" "$out" \
	"recorderd: triggers need mode = flight (in stream mode every event is in the files already)"

out=$(recd_start -c "$conf" 2>&1); rc=$?
t_eq "start with triggers: exit 0" "$rc" 0
t_check "the trigger instance exists" test -d "$TRACEFS/instances/$TRIG_INST"
t_check "signals are filtered in the kernel" grep -q "sig==11" \
	"$TRACEFS/instances/$TRIG_INST/events/signal/signal_generate/filter"

# status --json field of trigger $1: $2 (fired, joined, suppressed, last_file)
trig_field() {
	recd status --json 2>/dev/null | "$PY" -c "
import json, sys
for t in json.load(sys.stdin)['triggers']:
    if t['trigger'] == sys.argv[1]:
        print(t[sys.argv[2]])" "$1" "$2"
}

# fires KIND TRIGGER CAUSE...: history markers, the cause, markers in the window; then
# checks the file
fires() {
	local kind=$1 spec=$2 f rep n0 i
	shift 2
	n0=$(trig_field "$spec" fired)
	mark "pre-$kind" 1 300
	{ "$@"; } >/dev/null 2>&1
	for ((i = 0; i < 200; i++)); do
		[ "$(trig_field "$spec" fired)" != "$n0" ] && break
		sleep 0.05
	done
	t_check "$kind: fired (status counts it)" test "$(trig_field "$spec" fired)" -gt "$n0"
	mark "post-$kind" 1 20
	for ((i = 0; i < 100; i++)); do
		f=$(trig_field "$spec" last_file)
		[ -n "$f" ] && [ -s "$f" ] && break
		sleep 0.1
	done
	t_check "$kind: status names its file ($f)" test -s "$f"
	t_check "$kind: file name says what fired" grep -q "/trig-[0-9-]*\.[0-9]*-$kind" <<<"$f"
	rep=$TMP/rep.$kind
	report_to "$f" "$rep"
	t_check "$kind: trace-cmd reads the file" test $? -eq 0
	t_check "$kind: every marker before the trigger, in order" is_seq 300 \
		< <(markers_in "$rep" "pre-$kind")
	t_check "$kind: the record naming the trigger" \
		grep -q "tracing_mark_write: recorderd-trigger: $spec: " "$rep"
	t_check "$kind: the window after the trigger" is_seq 20 < <(markers_in "$rep" "post-$kind")
	LAST_FILE=$f
}

segv() { sh -c 'kill -SEGV $$' 2>/dev/null; }
fires signal "signal:SIGSEGV,SIGABRT" segv
t_check "signal: the task is named in the file name" grep -q "signal-sh.dat$" <<<"$LAST_FILE"
t_check "signal: and in the record" grep -q "recorderd-trigger: signal:SIGSEGV,SIGABRT: signal SIGSEGV to sh pid" "$TMP/rep.signal"

if [ $have_copy = 1 ]; then
	fires marker "marker:^TRIGGER-ME" sh -c "echo 'TRIGGER-ME at $$' >$TRACEFS/trace_marker"
	# The copies never fail an application's write, even with the daemon not reading
	# (stopped) and its trigger buffer long full.
	dpid=$(recd_pid)
	kill -STOP "$dpid"
	failed=$("$PY" - "$TRACEFS/trace_marker" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
failed = 0
for i in range(20000):
    try:
        os.write(fd, b"not a trigger %d padding padding padding padding padding\n" % i)
    except OSError:
        failed += 1
print(failed)
EOF
)
	kill -CONT "$dpid"
	t_eq "marker: a full trigger buffer never fails a trace_marker write" "$failed" 0
else
	t_skip "marker" "no options/copy_trace_marker (Linux 6.17+): marker triggers need it on tracefs"
fi

# OOM inside a memory cgroup of 64 MiB (v2 or v1, whichever this machine has)
oom_hog() {
	"$PY" - <<'EOF' 2>/dev/null
x = []
while True:
    x.append(bytearray(1 << 20))
EOF
}
cg_base=
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cg_base=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup); lim=memory.max
elif [ -d /sys/fs/cgroup/memory ]; then
	cg_base=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup); lim=memory.limit_in_bytes
fi
CG=$cg_base/recd027_$$
if [ -n "$cg_base" ] && mkdir "$CG" 2>/dev/null && echo 64M >"$CG/$lim" 2>/dev/null; then
	oom_cause() { sh -c "echo \$\$ >$CG/cgroup.procs; exec $PY -c 'x=[]
while 1: x.append(bytearray(1<<20))'" 2>/dev/null; }
	fires oom oom oom_cause
	t_check "oom: the victim is named" grep -q "oom-python3.dat$" <<<"$LAST_FILE"
else
	CG=
	t_skip "oom" "no memory cgroup to limit"
fi

# A writer stuck on a frozen filesystem is in D state; the detector reports it.
if [ -w $HUNG ] && [ "$(cat /proc/sys/kernel/hung_task_panic 2>/dev/null)" = 0 ] &&
	truncate -s 16M "$TMP/img" && mkfs.ext4 -q "$TMP/img" 2>/dev/null &&
	mkdir -p "$TMP/mnt" && mount -o loop "$TMP/img" "$TMP/mnt" 2>/dev/null; then
	hung_cause() {
		# The report is the cause here, not a complaint: traced, not printed.
		echo 0 >$WARN
		echo 1 >$HUNG
		FROZEN=$TMP/mnt
		fsfreeze --freeze "$FROZEN"
		(echo stuck >"$TMP/mnt/f") &
		HUNG_PID=$!
	}
	fires hung-task hung-task hung_cause
	fsfreeze --unfreeze "$FROZEN"; FROZEN=
	wait $HUNG_PID
	echo "$hung_old" >$HUNG
	echo "$warn_old" >$WARN
	umount "$TMP/mnt"
	# the detector reported the task again while it was stuck: let that window end
	sleep 2
else
	t_skip "hung-task" "no loop device, hung-task detector or hung_task_panic set"
fi

fires command command:snap recd trigger snap
t_check "command: named in the file name" grep -q "command-snap.dat$" <<<"$LAST_FILE"
out=$(recd trigger nosuch 2>&1); rc=$?
t_eq "unknown command trigger: exit 1" "$rc" 1
t_eq "unknown command trigger: says so" "$out" "recorderd: failed: no trigger command:nosuch is configured"
t_check "status lists the triggers" grep -q "^    command:snap  *[1-9]" <<<"$(recd status)"
# the trigger instance's count; no module here, so no marker watch to miss anything
t_check "status says what the triggers missed" grep -qE \
	"^  triggers missed: [0-9]+ trigger events overwritten unread$" <<<"$(recd status)"
t_check "status --json: what the triggers missed" "$PY" -c "
import json, sys
d = json.loads(sys.argv[1])
assert d['trigger_events_lost'] >= 0 and 'trigger_markers_missed' not in d" "$(recd status --json)"

# --- storm: the cooldown gives one file, the window counts the rest ---------------
before=$(ls "$OUT"/trig-*.dat | wc -l)
snap_total() {
	echo $(( $(trig_field command:snap fired) + $(trig_field command:snap joined) +
		 $(trig_field command:snap suppressed) ))
}
fired0=$(trig_field command:snap fired)
sed -i 's/^trigger_cooldown_ms = .*/trigger_cooldown_ms = 60000/; s/^trigger_post_ms = .*/trigger_post_ms = 300/' "$conf"
recd reload >/dev/null
# a reload keeps each kept trigger's counters
t_eq "reload keeps the counters" "$(trig_field command:snap fired)" "$fired0"
total0=$(snap_total)
for ((i = 0; i < 100; i++)); do recd trigger snap >/dev/null; done
sleep 1
after=$(ls "$OUT"/trig-*.dat | wc -l)
t_eq "storm of 100 with a cooldown: one file" "$((after - before))" 1
t_eq "storm: every trigger counted" "$(( $(snap_total) - total0 ))" 100

# --- storm with no cooldown: trigger_max_files keeps the newest --------------------
sed -i 's/^trigger_cooldown_ms = .*/trigger_cooldown_ms = 0/; s/^trigger_post_ms = .*/trigger_post_ms = 0/' "$conf"
echo "trigger_max_files = 3" >>"$conf"
recd reload >/dev/null
fired0=$(trig_field command:snap fired)
for ((i = 0; i < 100; i++)); do recd trigger snap >/dev/null; done
newest=$(trig_field command:snap last_file)
t_eq "storm without cooldown: 100 files written" "$(( $(trig_field command:snap fired) - fired0 ))" 100
t_eq "trigger_max_files: 3 kept" "$(ls "$OUT"/trig-*.dat | wc -l)" 3
t_check "trigger_max_files: the newest is kept" test -s "$newest"
t_check "no trigger error" test -z "$(recd_json last_error)"

# --- the marker copy never fails anyone's write: not while a start sets it up, a
# reload or a stop takes it down (with tracing off in the instance and the copy on,
# the kernel fails every trace_marker write of the system with EBADF)
if [ $have_copy = 1 ]; then
	touch "$TMP/writing"
	"$PY" - "$TRACEFS/trace_marker" "$TMP/writing" >"$TMP/ebadf" <<'EOF' &
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
failed = writes = 0
while writes % 64 or os.path.exists(sys.argv[2]):
    writes += 1
    try:
        os.write(fd, b"a bystander's marker\n")
    except OSError:
        failed += 1
print(failed, writes)
EOF
	wpid=$!
	for ((i = 0; i < 3; i++)); do
		recd stop >/dev/null
		recd_start -c "$conf" >/dev/null
		recd reload >/dev/null
	done
	rm "$TMP/writing"
	wait "$wpid"
	echo "# bystander: failed, written: $(cat "$TMP/ebadf")"
	t_eq "marker copy: no trace_marker write failed over 3 stops, starts, reloads" \
		"$(cut -d' ' -f1 "$TMP/ebadf")" 0
fi

# --- idle: triggers add no wake-up ---------------------------------------------------
if command -v strace >/dev/null; then
	wakes() {
		timeout -s INT 3 strace -f -qq -e trace=epoll_wait -p "$1" -o "$TMP/st" 2>/dev/null
		grep -c epoll_wait "$TMP/st"
	}
	sleep 1
	with=$(wakes "$(recd_pid)")
	recd stop >/dev/null
	sed -i '/^trigger/d' "$conf"
	recd_start -c "$conf" >/dev/null
	sleep 1
	without=$(wakes "$(recd_pid)")
	echo "# idle 3 s: $with wake-ups with triggers, $without without"
	t_check "idle: triggers cost no wake-up ($with vs $without in 3 s)" \
		test "$with" -le "$((without + 1))"
fi
recd stop >/dev/null
t_check "the trigger instance is removed at stop" test ! -d "$TRACEFS/instances/$TRIG_INST"
t_done
