#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 020-kmod-events.sh (2 vCPUs):
#  1. every event type of a known workload, read back through the mapping (ftring_ctl
#     dump), with its field values;
#  2. the same workload recorded by `recorderd record -s kmod` into $VM_OUT/kmod.dat,
#     which the host checks with trace-cmd report, and a pid the kernel's
#     saved_cmdlines names stale, reused while recording; and the workload recorded
#     by ftring and by trace-cmd (ftrace) at the same time, for the host to compare;
#  3. flood accounting in discard and overwrite mode (ftring_flood);
#  4. CPU hotplug during a capture; rmmod while mapped, while blocked in GET_READER,
#     and while recording under load.
. /vm/guest/lib.sh
g_dmesg_mark
O=$VM_OUT

if ! insmod /vm/ftring.ko; then
	g_fail insmod "insmod /vm/ftring.ko failed: $(dmesg | tail -n 5)"
	exit 0
fi
g_ok insmod

# --- 1. events through the raw mapping --------------------------------------------
ftring_ctl stop 2>/dev/null
g_check events.setup sh -c 'ftring_ctl config 512 discard && ftring_ctl reset && ftring_ctl events all && ftring_ctl start'
wl=$(ftring_workload)
g_eq events.workload-exit "$?" 0
# an exec by a path longer than an event can hold (4 082 bytes; named true for busybox)
LONG=/tmp/ftw-long; i=0
while [ $i -lt 16 ]; do LONG=$LONG/$(printf '%0253d' $i); i=$((i + 1)); done
mkdir -p "$LONG" && cp /bin/true "$LONG/true" && "$LONG/true"
g_eq events.long-exec-exit "$?" 0
# a burst of console output: serial interrupts while recording
i=0; while [ $i -lt 40 ]; do echo "guest: irq source line $i" >/dev/console; i=$((i + 1)); done
ftring_ctl stop
ftring_ctl dump >"$O/dump.txt" 2>"$O/dump.err"
g_eq events.dump-exit "$?" 0
P=$(echo "$wl" | sed -n 's/.*parent=\([0-9]*\).*/\1/p')
C=$(echo "$wl" | sed -n 's/.*child=\([0-9]*\).*/\1/p')
EXE=$(echo "$wl" | sed -n 's/.*exe=\([^ ]*\).*/\1/p')
NR=$(echo "$wl" | sed -n 's/.*lseek=\([0-9]*\).*/\1/p')	# the syscall's number here
echo "$wl" >"$O/workload.txt"
D=$O/dump.txt
has() { grep -qE -- "$1" "$D"; }
cnt() { grep -cE -- "$1" "$D"; }
chk() { if has "$2"; then g_ok "events.$1"; else g_fail "events.$1" "no line matching '$2' in dump.txt"; fi; }
chk marker-start " marker pid=$P flags=[^ ]* mpid=$P buf=ftw start $P\$"
chk marker-child " marker pid=$C flags=[^ ]* mpid=$C buf=ftw child $C\$"
chk marker-exec " marker pid=$C flags=[^ ]* mpid=$C buf=ftw exec $C\$"
chk marker-done " marker pid=$P flags=[^ ]* mpid=$P buf=ftw done $C\$"
chk fork " sched_process_fork pid=$P .* parent_comm=ftw-parent parent_pid=$P child_comm=ftw-parent child_pid=$C\$"
chk wakeup_new " sched_wakeup_new pid=$P .* comm=ftw-parent pid=$C prio=120 target_cpu=[0-9]+\$"
chk exec " sched_process_exec pid=$C .* filename=$EXE pid=$C old_pid=$C\$"
chk exit " sched_process_exit pid=$C .* comm=ftring_workload pid=$C prio=120\$"
# the long path's exec is kept with its name cut short to what a 4 KiB page holds
# (a prefix of 4 000 bytes or more; all of it with larger pages)
name=$(sed -n 's/.* sched_process_exec .* filename=\(\/tmp\/ftw-long\/[^ ]*\) pid=.*/\1/p' "$D")
case "$LONG/true" in
"$name"*) if [ ${#name} -ge 4000 ]; then g_ok events.exec-long-name; else g_fail events.exec-long-name "${#name} bytes kept"; fi ;;
*) g_fail events.exec-long-name "no exec of the 4 082-byte path (kept: ${#name} bytes)" ;;
esac
rm -rf /tmp/ftw-long
# fd -1 is an int: on x86-64 the register holds 0xffffffff (32-bit moves
# zero-extend), on arm64 the C library passes it sign-extended
chk sys_enter " sys_enter pid=$P .* id=$NR args=(ffffffff|ffffffffffffffff),1234,0,"
chk sys_exit " sys_exit pid=$P .* id=$NR ret=-9\$"
chk switch-from-parent " sched_switch pid=$P .* prev_comm=ftw-parent prev_pid=$P prev_prio=120 prev_state=1 "
chk switch-to-child " sched_switch .* next_comm=ftw-child next_pid=$C next_prio=120\$"
# Each of the 20 round trips makes one of the two sleep and be woken (which one, and
# whether by the other or by the idle task of its CPU through an IPI, depends on the
# scheduling).
n=$(cnt " sched_wakeup pid=[0-9]+ .* comm=ftw-(child|parent) pid=($C|$P) prio=120 target_cpu=")
if [ "$n" -ge 19 ]; then g_ok events.ping-pong-wakeups; else g_fail events.ping-pong-wakeups "$n sched_wakeup between the two, want >= 19 (20 round trips)"; fi
chk irq_handler_entry " irq_handler_entry pid=[0-9]+ .* irq=[0-9]+ name=[^ <]+\$"
chk irq_handler_exit " irq_handler_exit pid=[0-9]+ .* irq=[0-9]+ ret=1\$"
chk softirq_entry " softirq_entry pid=[0-9]+ .* vec=[0-9]\$"
n1=$(cnt " softirq_entry "); n2=$(cnt " softirq_exit ")
d=$((n1 - n2)); [ $d -lt 0 ] && d=$((-d))
if [ "$d" -le 2 ] && [ "$n1" -gt 0 ]; then g_ok events.softirq-paired; else g_fail events.softirq-paired "entries $n1 exits $n2"; fi
n=$(grep -cE "UNKNOWN|BAD-PAGE|BAD-DATA-LOC" "$D")
g_eq events.no-bad-records "$n" 0
# Time never goes backwards within one CPU (a "LOST n" line has no time).
bad=$(awk '$2 ~ /^ts=/ { split($1, c, "="); split($2, t, "="); if (t[2] + 0 < last[c[2]]) n++; last[c[2]] = t[2] + 0 } END { print n + 0 }' "$D")
g_eq events.time-monotonic "$bad" 0
g_dmesg_clean events.dmesg

# --- 2. the same workload through recorderd ----------------------------------------

# A pid the kernel's saved_cmdlines names (ftrace saw it as "ftw-stale", which exited)
# reused by "ftw-live" while recorderd records from the module: the file must name the
# live task as /proc does, not by the stale entry the module's events never refreshed.
reused_pid_name() {
	_T=/sys/kernel/tracing
	echo 1 >$_T/events/sched/sched_switch/enable
	sh -c 'printf ftw-stale >/proc/$$/comm; i=0
		while [ $i -lt 3 ]; do sleep 0.01; i=$((i + 1)); done' &
	_p=$!
	wait $_p
	echo 0 >$_T/events/sched/sched_switch/enable
	echo >$_T/trace
	g_check recorder.reused-pid-stale-entry grep -qx "$_p ftw-stale" $_T/saved_cmdlines
	# the next pid given is $_p, if nothing forks in between (a quiet guest; before
	# recorderd, whose threads take pids too)
	rm -f /tmp/live.stop
	echo $((_p - 1)) >/proc/sys/kernel/ns_last_pid
	sh -c 'printf ftw-live >/proc/$$/comm
		while [ ! -e /tmp/live.stop ]; do sleep 0.05; done' &
	_l=$!
	g_eq recorder.reused-pid "$_l" "$_p"
	recorderd record -q -s kmod -e sched -o /tmp/k7.dat >"$O/reused-pid.txt" 2>&1 &
	_r=$!
	_i=0
	while [ $_i -lt 100 ] && ! ftring_ctl stats | grep -q '^recording=1'; do
		sleep 0.1; _i=$((_i + 1))
	done
	sleep 1
	kill -INT $_r
	wait $_r
	g_eq recorder.reused-pid-exit "$?" 0
	touch /tmp/live.stop
	wait $_l
	echo "$_p" >"$O/reused-pid"
	cp /tmp/k7.dat "$O/kmod-reused-pid.dat" 2>/dev/null
	rm -f /tmp/k7.dat /tmp/live.stop
}
if [ -x /vm/bin/recorderd ]; then
	ftring_ctl config 512 discard >/dev/null 2>&1
	recorderd record -s kmod -e all -o /tmp/kmod.dat -- ftring_workload \
		>"$O/record.txt" 2>&1
	rc=$?
	cat "$O/record.txt"
	g_eq recorder.exit "$rc" 0
	cp /tmp/kmod.dat "$O/kmod.dat" 2>/dev/null
	g_check recorder.file test -s "$O/kmod.dat"
	g_check recorder.module-stopped sh -c 'ftring_ctl stats | grep -q "^recording=0"'
	rm -f /tmp/kmod.dat
	# recorderd puts the module's settings back, and refuses bad input touching nothing.
	before=$(ftring_ctl show)
	recorderd record -q -s kmod -b 256 -c global -e sched -o /tmp/k2.dat -- true >/dev/null 2>&1
	g_eq recorder.other-settings-exit "$?" 0
	g_eq recorder.settings-restored "$(ftring_ctl show)" "$before"
	# the file names the module's clock, not the one tracefs has selected
	recorderd record -q -s kmod -c mono -e sched -o /tmp/k5.dat -- true >/dev/null 2>&1
	g_eq recorder.mono-exit "$?" 0
	cp /tmp/k5.dat "$O/kmod-mono.dat" 2>/dev/null
	rm -f /tmp/k5.dat
	# markers are recorded whatever -e names (as trace_marker is), unless left out
	recorderd record -q -s kmod -e sched -o /tmp/k6.dat -- \
		sh -c 'echo marker-by-default > /dev/ftring/marker' >/dev/null 2>&1
	g_eq recorder.marker-default-exit "$?" 0
	cp /tmp/k6.dat "$O/kmod-marker-default.dat" 2>/dev/null
	recorderd record -q -s kmod -e sched -e '!marker' -o /tmp/k6.dat -- \
		sh -c 'echo marker-left-out > /dev/ftring/marker 2>/dev/null; true' >/dev/null 2>&1
	g_eq recorder.marker-excluded-exit "$?" 0
	cp /tmp/k6.dat "$O/kmod-marker-excluded.dat" 2>/dev/null
	rm -f /tmp/k6.dat
	out=$(recorderd record -s kmod -e nosuch -o /tmp/k3.dat -- true 2>&1)
	g_eq recorder.bad-event-exit "$([ $? -ne 0 ] && echo failed)" failed
	g_check recorder.bad-event-message sh -c "echo \"$out\" | grep -q \"no event 'nosuch'\""
	g_check recorder.bad-event-no-file test ! -e /tmp/k3.dat
	g_eq recorder.bad-event-settings-kept "$(ftring_ctl show)" "$before"
	ftring_ctl start
	recorderd record -s kmod -o /tmp/k4.dat -- true >/dev/null 2>&1
	g_eq recorder.busy-module-refused "$([ $? -ne 0 ] && echo failed)" failed
	g_check recorder.busy-module-still-recording sh -c 'ftring_ctl stats | grep -q "^recording=1"'
	ftring_ctl stop
	rm -f /tmp/k2.dat /tmp/k3.dat /tmp/k4.dat
	reused_pid_name
else
	g_skip recorder "no recorderd in the guest"
fi
g_dmesg_clean recorder.dmesg

# --- 2b. side by side with ftrace: trace-cmd records the same tracepoints while ftring
# does; the host compares the workload's events in both (trace-cmd report -R).
if command -v trace-cmd >/dev/null; then
	ftring_ctl config 512 discard >/dev/null && ftring_ctl reset && ftring_ctl events all &&
		ftring_ctl start
	trace-cmd record -q -o /tmp/ftrace.dat -e sched:sched_switch -e sched:sched_wakeup \
		-e sched:sched_wakeup_new -e sched:sched_process_fork -e sched:sched_process_exec \
		-e sched:sched_process_exit ftring_workload >"$O/side-workload.txt" 2>"$O/side-record.err"
	rc=$?
	ftring_ctl stop
	g_eq side.trace-cmd-record "$rc" 0
	ftring_ctl dump >"$O/side-ftring.txt" 2>/dev/null
	cp /tmp/ftrace.dat "$O/side-ftrace.dat" && rm -f /tmp/ftrace.dat
else
	g_skip side "no trace-cmd in the guest"
fi

# --- 3. flood accounting -------------------------------------------------------------
g_kselftest flood-discard ftring_flood -m discard -n 4 -r "$FLOOD_READER_US" -d 3
g_dmesg_clean flood-discard.dmesg
g_kselftest flood-overwrite ftring_flood -m overwrite -n 4 -r "$FLOOD_READER_US" -d 3
g_dmesg_clean flood-overwrite.dmesg

# --- 4. hotplug and unload ------------------------------------------------------------
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	ftring_ctl config 64 overwrite >/dev/null && ftring_ctl reset && ftring_ctl events all &&
		ftring_ctl start
	ftring_ctl marker-loop 4 >/dev/null &
	ml=$!
	sleep 1
	g_check hotplug.offline sh -c 'echo 0 > /sys/devices/system/cpu/cpu1/online'
	sleep 1
	g_check hotplug.online sh -c 'echo 1 > /sys/devices/system/cpu/cpu1/online'
	wait $ml
	# after the loop: in overwrite mode its markers would push this one out
	taskset 2 sh -c 'echo hotplug-after > /dev/ftring/marker'
	ftring_ctl stop
	g_check hotplug.cpu1-device test -c /dev/ftring/cpu1
	ftring_ctl dump >"$O/hotplug.txt" 2>/dev/null
	g_check hotplug.marker-after-online grep -qE '^cpu=1 .* marker .* buf=hotplug-after$' "$O/hotplug.txt"
	n=$(grep -cE "UNKNOWN|BAD-PAGE|BAD-DATA-LOC" "$O/hotplug.txt")
	g_eq hotplug.no-bad-records "$n" 0
else
	g_skip hotplug "cpu1 cannot go offline"
fi
g_dmesg_clean hotplug.dmesg

# rmmod while a mapping (without an open fd) exists: refused, mapping still readable.
ftring_ctl hold-map /tmp/held >"$O/hold-map.txt" 2>&1 &
h=$!
i=0; while [ ! -s /tmp/held ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if rmmod ftring 2>/dev/null; then g_fail unload.refused-while-mapped "rmmod succeeded"; else g_ok unload.refused-while-mapped; fi
kill -USR1 $h; sleep 0.5
g_check unload.mapping-readable grep -q 'meta_struct_len=88' "$O/hold-map.txt"
kill $h; wait $h 2>/dev/null
rm -f /tmp/held

# rmmod while a reader is blocked in GET_READER: refused; a signal ends the wait.
ftring_ctl config 64 discard >/dev/null 2>&1; ftring_ctl events 0 >/dev/null 2>&1
ftring_ctl hold-poll /tmp/held >"$O/hold-poll.txt" 2>&1 &
h=$!
i=0; while [ ! -s /tmp/held ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
if rmmod ftring 2>/dev/null; then g_fail unload.refused-while-blocked "rmmod succeeded"; else g_ok unload.refused-while-blocked; fi
kill -USR1 $h
i=0; while kill -0 $h 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $h 2>/dev/null; then
	g_fail unload.blocked-reader-interruptible "GET_READER did not return on a signal"
	kill -9 $h
else
	g_check unload.blocked-reader-interruptible grep -q 'GET_READER returned -4' "$O/hold-poll.txt"
fi
wait $h 2>/dev/null

# rmmod while recording every event under load (which holds no ftring file, else
# the module is rightly pinned): probes detach cleanly.
ftring_ctl events all && ftring_ctl start
(i=0; while [ $i -lt 300 ]; do cat /proc/self/stat >/dev/null; i=$((i + 1)); done) &
l1=$!
(i=0; while [ $i -lt 300 ]; do echo $i | cat >/dev/null; i=$((i + 1)); done) &
l2=$!
sleep 1
g_check unload.while-recording rmmod ftring
wait $l1 $l2 2>/dev/null
g_check unload.gone sh -c '! grep -q "^ftring " /proc/modules'
g_check unload.reload sh -c 'insmod /vm/ftring.ko && rmmod ftring'
g_dmesg_clean unload.dmesg
