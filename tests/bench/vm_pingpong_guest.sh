#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of tests/bench/vm_pingpong (-smp 1 -icount boot), runnable alone or as one
# part of a bigger guest script:
#  - pipe ping-pong untraced, under ftrace and under ftring, both tracing
#    sched_switch + sched_wakeup;
#  - a fork/exec/exit/wait loop untraced, under ftrace and under ftring, both tracing
#    the six events of a process's life (FE_EVENTS below);
#  - marker writes of 16/128/1024 bytes to /dev/null, trace_marker and
#    /dev/ftring/marker.
# After each traced run it prints how many events the tracer wrote (ftrace: entries +
# overrun of cpu0, so overwritten events count too; ftring: entries, which count every
# event committed). Prints only "prod_KEY VALUE" lines on stdout; messages go to stderr.
# Leaves tracefs as it found it (ftrace runs in an instance of its own, removed at the
# end) and unloads ftring if it loaded it.
#   vm_pingpong_guest.sh ROUNDS WRITES FORKS FE_ROUNDS REPEATS
#	ROUNDS ping-pong round trips and WRITES marker writes per run, REPEATS runs each
#	(median); FORKS fork/execs per run, FE_ROUNDS runs of each tracer (median)
R=${1:-20000} W=${2:-5000} F=${3:-50} FR=${4:-201} N=${5:-3}
PP_EVENTS="sched_switch sched_wakeup"
FE_EVENTS="sched_switch sched_wakeup sched_wakeup_new sched_process_fork
	sched_process_exec sched_process_exit"

kv() { echo "prod_$1 $2"; }
warn() { echo "vm_pingpong_guest: $*" >&2; }

# ftrace_events 0|1 EVENT...: switch sched events of our instance.
ftrace_events() {
	on=$1
	shift
	for e in "$@"; do
		echo "$on" >"$T/events/sched/$e/enable" || warn "cannot set $e to $on"
	done
}

# ftrace_count: events written to cpu0's buffer since the last clear, overwritten or not.
ftrace_count() {
	awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } END { print e + o }' \
		"$T/per_cpu/cpu0/stats"
}

# ftring_count FIELD: a cpu0 counter from "ftring_ctl stats".
ftring_count() {
	ftring_ctl stats | sed -n "s/^cpu=0 .* $1=\([0-9]*\).*/\1/p"
}

# ftrace_run KEY EVENTS CMD...: run CMD with EVENTS on in a cleared ftrace buffer.
ftrace_run() {
	key=$1 evs=$2
	shift 2
	echo >"$T/trace"
	ftrace_events 1 $evs
	echo 1 >"$T/tracing_on"
	kv "$key" "$("$@")"
	echo 0 >"$T/tracing_on"
	ftrace_events 0 $evs
	kv "${key}_events" "$(ftrace_count)"
	echo >"$T/trace"
}

# ftring_run KEY EVENTS CMD...: the same with ftring recording EVENTS.
ftring_run() {
	key=$1 evs=$2
	shift 2
	ftring_ctl reset && ftring_ctl events "$(echo $evs | tr ' ' ,)" && ftring_ctl start ||
		{ warn "ftring setup for $key failed"; return 1; }
	kv "$key" "$("$@")"
	ftring_ctl stop
	kv "${key}_events" "$(ftring_count entries)"
	kv "${key}_lost" "$(ftring_count lost)"
	ftring_ctl reset
}

kv kernel "$(uname -r)"
kv rounds "$R"
kv writes "$W"
kv forks "$F"
kv fe_rounds "$FR"
kv repeats "$N"

# ftrace in an instance of its own (own buffer, events, tracing_on and trace_marker):
# rmdir undoes everything. One exception: resizing any buffer marks the kernel's
# boot-time buffers as expanded (ring_buffer_expanded), so a top-level buffer still at
# its boot size ("7 (expanded: 1408)") would stay 7 KB for later users; give it the
# size its first use would have given it.
top_kb=$(cat /sys/kernel/tracing/buffer_size_kb)
case $top_kb in
*expanded:*)
	echo "$top_kb" | sed 's/.*expanded: \([0-9]*\).*/\1/' >/sys/kernel/tracing/buffer_size_kb ;;
esac
T=/sys/kernel/tracing/instances/vm_pingpong
[ ! -d $T ] || rmdir $T
mkdir $T || { warn "cannot create $T"; exit 1; }
echo 0 >$T/tracing_on
# Large enough that overwriting (which entries + overrun still count) is rare.
echo 16384 >$T/buffer_size_kb

# ftring: loaded here, or already loaded by an earlier part (then its configuration and
# event mask are put back at the end, and a recording in progress is left alone).
ftring=0 loaded=0 old_ft=
if [ -e /dev/ftring/ctl ]; then
	old_ft=$(ftring_ctl show)
	if ftring_ctl stats | grep -q '^recording=1'; then
		warn "ftring is recording for someone else: ftrace figures only"
	else
		ftring=1
	fi
elif [ -e /vm/ftring.ko ] && insmod /vm/ftring.ko; then
	ftring=1 loaded=1
else
	warn "no ftring module: ftrace figures only"
fi
if [ $ftring = 1 ]; then
	ftring_ctl config 4096 overwrite && ftring_ctl reset ||
		{ warn "ftring config failed"; ftring=0; }
fi

kv pp_none "$(vm_pingpong pingpong "$R" "$N")"
ftrace_run pp_ftrace "$PP_EVENTS" vm_pingpong pingpong "$R" "$N"
[ $ftring = 0 ] || ftring_run pp_ftring "$PP_EVENTS" vm_pingpong pingpong "$R" "$N"

# A fork/exec run's cost per op varies by ~1.2% (sd) from one process to the next, the
# same for 50 or 500 ops per run, more than ftring adds: FE_ROUNDS rounds of (untraced,
# ftrace, ftring), one short run in a fresh process each; the analysis takes medians.
# The events each tracer records around a run (the shell starting it; for ftring also
# ftring_ctl start exiting and ftring_ctl stop starting) are counted once without load,
# to be taken off the runs' counts.
ftrace_run fe_ftrace_idle "$FE_EVENTS" vm_pingpong idle
[ $ftring = 0 ] || ftring_run fe_ftring_idle "$FE_EVENTS" vm_pingpong idle
i=1
while [ $i -le "$FR" ]; do
	kv "fe_none_$i" "$(vm_pingpong forkexec "$F" 1)"
	ftrace_run "fe_ftrace_$i" "$FE_EVENTS" vm_pingpong forkexec "$F" 1
	[ $ftring = 0 ] || ftring_run "fe_ftring_$i" "$FE_EVENTS" vm_pingpong forkexec "$F" 1
	i=$((i + 1))
done

# Marker writes: the syscall itself (/dev/null), ftrace, ftring.
for b in 16 128 1024; do
	kv "wr_null_$b" "$(vm_pingpong write /dev/null "$b" "$W" "$N")"
	echo 1 >$T/tracing_on
	kv "wr_ftrace_$b" "$(vm_pingpong write $T/trace_marker "$b" "$W" "$N")"
	echo 0 >$T/tracing_on
	echo >$T/trace
	if [ $ftring = 1 ]; then
		ftring_ctl reset && ftring_ctl events marker && ftring_ctl start &&
			kv "wr_ftring_$b" "$(vm_pingpong write /dev/ftring/marker "$b" "$W" "$N")"
		ftring_ctl stop
		ftring_ctl reset
		# with a marker trigger armed on the module (recorderd's marker watch) whose
		# literal no marker holds: what an armed trigger costs while nothing fires;
		# w: looked for anywhere in the marker, wa: anchored (^) at its start
		for wk in w:never-in-a-marker wa:^never-in-a-marker; do
			rm -f /tmp/watch.pid
			ftring_ctl watch "${wk#*:}" /tmp/watch.pid >/dev/null &
			wp=$!
			while [ ! -s /tmp/watch.pid ] && kill -0 $wp 2>/dev/null; do sleep 0.1; done
			ftring_ctl reset && ftring_ctl events marker && ftring_ctl start &&
				kv "wr_ftring${wk%%:*}_$b" \
					"$(vm_pingpong write /dev/ftring/marker "$b" "$W" "$N")"
			ftring_ctl stop
			ftring_ctl reset
			kill -USR1 $wp
			wait $wp
		done
	fi
done

if [ $loaded = 1 ]; then
	rmmod ftring || warn "rmmod ftring failed"
elif [ $ftring = 1 ]; then
	set -- $(echo "$old_ft" | sed 's/[a-z_]*=//g')	# nr_subbufs mode clock watermark events
	[ "$2" = 1 ] && mode=overwrite || mode=discard
	ftring_ctl config "$1" $mode && ftring_ctl events "$5" ||
		warn "cannot restore ftring's configuration ($old_ft)"
fi
rmdir $T || warn "cannot remove $T"
exit 0
