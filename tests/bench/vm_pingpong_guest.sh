#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of tests/bench/vm_pingpong (one -smp 1 -icount boot): pipe ping-pong
# untraced, under ftrace (sched_switch + sched_wakeup) and under ftring (the same two
# events), then marker writes to trace_marker and /dev/ftring/marker. Prints
# "key value" lines; the host script turns them into the report.
#   vm_pingpong_guest.sh ROUNDS WRITES REPEATS
R=${1:-20000} W=${2:-5000} N=${3:-3}
T=/sys/kernel/tracing
echo "rounds $R"
echo "writes $W"
echo "repeats $N"

echo "pp_none $(vm_pingpong pingpong "$R" "$N")"

# ftrace: both buffers large enough that nothing is overwritten during a run.
echo 0 >$T/tracing_on
echo 16384 >$T/buffer_size_kb
echo >$T/trace
echo 1 >$T/events/sched/sched_switch/enable
echo 1 >$T/events/sched/sched_wakeup/enable
echo 1 >$T/tracing_on
echo "pp_ftrace $(vm_pingpong pingpong "$R" "$N")"
echo 0 >$T/tracing_on
echo "ftrace_entries $(sed -n 's/^entries: //p' $T/per_cpu/cpu0/stats)"
echo "ftrace_overrun $(sed -n 's/^overrun: //p' $T/per_cpu/cpu0/stats)"
echo 0 >$T/events/sched/sched_switch/enable
echo 0 >$T/events/sched/sched_wakeup/enable
echo >$T/trace

if [ -e /vm/ftring.ko ] && insmod /vm/ftring.ko; then
	ftring_ctl config 4096 overwrite && ftring_ctl reset &&
		ftring_ctl events sched_switch,sched_wakeup &&
		ftring_ctl start || echo "error ftring setup"
	echo "pp_ftring $(vm_pingpong pingpong "$R" "$N")"
	ftring_ctl stop
	ftring_ctl stats | sed -n 's/^cpu=0 .*entries=\([0-9]*\).*overrun=\([0-9]*\).*/ftring_entries \1\nftring_overrun \2/p'
	ftring_ctl reset
fi

# Marker writes: the syscall itself (/dev/null), ftrace, ftring.
for b in 16 128 1024; do
	echo "wr_null_$b $(vm_pingpong write /dev/null "$b" "$W" "$N")"
	echo 1 >$T/tracing_on
	echo "wr_ftrace_$b $(vm_pingpong write $T/trace_marker "$b" "$W" "$N")"
	echo 0 >$T/tracing_on
	echo >$T/trace
	if [ -e /dev/ftring/ctl ]; then
		ftring_ctl events marker && ftring_ctl start
		echo "wr_ftring_$b $(vm_pingpong write /dev/ftring/marker "$b" "$W" "$N")"
		ftring_ctl stop
		ftring_ctl reset
	fi
done
[ -e /dev/ftring/ctl ] && rmmod ftring
exit 0
