#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An idle recorder costs nothing (issue: always-on means battery and noise): with an
# event that never fires, `recorderd record` and the daemon wake at most about once a
# second (the sync interval; 5 times a second before), write nothing, read no per-CPU
# stats files, and start writing again as soon as something happens. Measured with
# strace over 4 s once the recorder has been idle for 2 s.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup idle
command -v strace >/dev/null || { t_skip "idle" "no strace"; t_done; }
EV=sched:sched_process_hang	# exists on every kernel here, never fires in a test

# syscalls of PID's threads over WINDOW seconds, "name count" lines
count_calls() {
	timeout -s INT "$2" strace -f -qq -p "$1" -o "$TMP/st.$3" 2>/dev/null
	sed -E 's/^[0-9]+ +//; s/\(.*//' "$TMP/st.$3" | sort | uniq -c |
		awk '{ print $2, $1 }' >"$TMP/calls.$3"
}
calls() { awk -v n="$1" '$1 == n { print $2 }' "$TMP/calls.$2" | grep . || echo 0; }
opens_stats() { grep -c 'per_cpu/cpu[0-9]*/stats' "$TMP/st.$1"; }

# epoll_waits that returned (a thread asleep in one all along is not woken)
wakeups() { grep -cE 'epoll_wait\(.*\) += |<\.\.\. epoll_wait resumed>.*\) += ' "$TMP/st.$1"; }

check_idle() {	# WHAT TAG
	local wakes writes
	wakes=$(wakeups "$2")
	writes=$(( $(calls pwrite64 "$2") + $(calls write "$2") + $(calls fdatasync "$2") ))
	echo "# $1 idle for 4 s: $wakes wake-ups, $writes writes/syncs, $(opens_stats "$2") stats reads"
	# A 1 s timer fires 4 or 5 times in a window of 4 s and a little; strace adds the
	# call in flight when it attaches (restarted by the attach): 7 at most, whatever the
	# threads (each drain thread sleeps in its epoll_wait). The old 5-a-second tick gave
	# 20 and more.
	t_check "$1 idle: at most ~1 wake-up a second ($wakes in 4 s)" test "$wakes" -le 7
	t_eq "$1 idle: no write, no fdatasync" "$writes" 0
	t_eq "$1 idle: no per-CPU stats file read" "$(opens_stats "$2")" 0
}

# --- recorderd record ------------------------------------------------------------------
"$RECORDERD" record -q -s splice -B "$INST" -e "$EV" -o "$TMP/rec.dat" -- sleep 12 \
	>"$TMP/rec.log" 2>&1 &
rec=$!
for ((i = 0; i < 50; i++)); do [ -s "$TMP/rec.dat" ] && break; sleep 0.1; done
sleep 3
count_calls "$rec" 4 rec
check_idle record rec
# Not asleep for good: a marker written now is in the file at the next sync.
echo "idle-wake-marker" >"$TRACEFS/instances/$INST/trace_marker"
sleep 2.5
cp --sparse=always "$TMP/rec.dat" "$TMP/rec-copy.dat"
t_check "record: a marker after the idle time is synced within 2.5 s" \
	grep -q idle-wake-marker <(trace-cmd report "$TMP/rec-copy.dat" 2>/dev/null)
kill -INT $rec
wait $rec

# --- the daemon -------------------------------------------------------------------------
rmdir "$TRACEFS/instances/$INST" 2>/dev/null
recd_start -e "$EV" >/dev/null 2>&1
pid=$(recd_pid)
if [ -z "$pid" ]; then
	t_check "daemon started" false
	t_done
fi
sleep 3
count_calls "$pid" 4 dmn
check_idle daemon dmn
recd stop >/dev/null 2>&1
t_done
