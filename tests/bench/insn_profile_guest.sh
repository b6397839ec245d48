#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of tests/bench/insn_profile: one workload, in a boot of its own under the
# insn_profile qemu plugin, then the symbols the host maps the plugin's blocks to.
#   insn_profile_guest.sh MODE N
#	MODE	pp_none | pp_ftring | pp_ftrace   N pipe ping-pong round trips,
#		untraced or tracing sched_switch + sched_wakeup (as vm_pingpong_guest.sh)
#		wr_null | wr_ftring | wr_ftrace   N 16-byte writes to /dev/null,
#		/dev/ftring/marker, trace_marker
# Writes /out/kallsyms.txt and prints "prof_events N" (the events the tracer wrote) and
# "prof_units U" (vm_pingpong's own figure: units per round trip or write) and
# "prof_ops OPS ALL" (round trips or writes in the profile's window, the timed run,
# and in the whole run, whose events the tracer counted: vm_pingpong warms up first)
# and "prof_kernel RELEASE".
MODE=$1 N=$2
PP_EVENTS="sched_switch sched_wakeup"
warn() { echo "insn_profile_guest: $*" >&2; }

# the module is loaded in every mode, so its symbols and its load cost are in each
insmod /vm/ftring.ko || { warn "cannot load ftring"; exit 1; }
ftring_ctl config 4096 overwrite && ftring_ctl reset || { warn "ftring config"; exit 1; }
T=/sys/kernel/tracing/instances/insn_profile
mkdir $T && echo 0 >$T/tracing_on && echo 16384 >$T/buffer_size_kb ||
	{ warn "cannot make $T"; exit 1; }

case $MODE in
pp_*) evs=$PP_EVENTS run="vm_pingpong pingpong $N 1" ;;
wr_null) evs= run="vm_pingpong write /dev/null 16 $N 1" ;;
wr_ftring) evs=marker run="vm_pingpong write /dev/ftring/marker 16 $N 1" ;;
wr_ftrace) evs= run="vm_pingpong write $T/trace_marker 16 $N 1" ;;
*) warn "unknown mode $MODE"; exit 2 ;;
esac

case $MODE in
*_ftring)
	ftring_ctl events "$(echo $evs | tr ' ' ,)" && ftring_ctl start || exit 1
	echo "prof_units $($run)"
	ftring_ctl stop
	echo "prof_events $(ftring_ctl stats | sed -n 's/^cpu=0 .* entries=\([0-9]*\).*/\1/p')"
	;;
*_ftrace)
	for e in $evs; do echo 1 >"$T/events/sched/$e/enable"; done
	echo 1 >$T/tracing_on
	echo "prof_units $($run)"
	echo 0 >$T/tracing_on
	awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } END { print "prof_events", e + o }' \
		$T/per_cpu/cpu0/stats
	;;
*)
	echo "prof_units $($run)"
	echo "prof_events 0"
	;;
esac
echo "prof_ops $N $((N + N / 10 + 1))"
echo "prof_kernel $(uname -r)"
cat /proc/kallsyms >/out/kallsyms.txt
