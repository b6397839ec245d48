#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of tests/bench/vm_recorder (one -smp 1 -icount boot, --with-trace-cmd).
# Three recorders take the same stream of 64-byte markers (vm_load markers), written
# by a process outside their process tree:
#   tc      trace-cmd record --file-version 7 --compression zstd   (trace_marker)
#   splice  recorderd record -s splice -C zstd                      (trace_marker)
#   kmod    recorderd record -s kmod -C zstd -e marker              (/dev/ftring/marker)
# Each recorder runs under `vm_load cpu`, which reports the CPU seconds of its whole
# process tree (trace-cmd's per-CPU children included, the load excluded).
#  rec:  COUNT markers unpaced with REC_KB KiB per CPU, and an idle run (no markers:
#        start-up, metadata and shutdown cost), files in /out/rec/NAME.dat
#  loss: for each RATE, RATE * MS / 1000 markers at RATE per guest second, written by a
#        SCHED_FIFO process (the recorder only gets the CPU the load leaves), LOSS_KB
#        KiB per CPU; files in /out/loss/NAME-RATE.dat
#  flood: a flood on every CPU (vm_load flood: one unpaced writer per CPU, pinned, at
#        normal priority, FLOOD_COUNT markers each), FLOOD_KB KiB per CPU; files in
#        /out/flood/NAME.dat
#  stack: what a recorder costs a workload, whole stack (kernel events, the recorder's
#        own threads, its writes: all on the one vCPU): vm_pingpong's ping-pong (median
#        of REPEATS runs of ROUNDS round trips, sched_switch + sched_wakeup) and its
#        fork/exec loop (FE_RUNS runs of FORKS, the six sched events of a process's
#        life), untraced, under `trace-cmd record` and under `recorderd record`, each
#        with its own defaults (buffer size, file format, compression, page source) but
#        the events; files in /out/stack/NAME-LOAD.dat. Then the fork/exec loop once
#        more under `recorderd record -C none` (NAME rdnc): what compressing meanwhile
#        costs the workload (trace-cmd compresses only after its capture)
# The host counts the markers in the files (written - found = lost). Prints only
# "key value" lines (keys rec_*, loss_*, stack_*); puts tracefs and the module back as
# found.
#   vm_recorder_guest.sh COUNT REC_KB LOSS_KB MS RATE[,RATE...]
#                        [ROUNDS,REPEATS,FORKS,FE_RUNS [RECORDERS [FLOOD_KB,FLOOD_COUNT]]]
# COUNT 0 leaves out the recorder cost, RATE "-" the loss curve, a stack of "-" the
# whole-stack part, a flood of "-" (the default) the flood.
N=${1:-400000} RKB=${2:-1024} LKB=${3:-256} MS=${4:-1000} RATES=${5:-1000,2000}
STACK=${6:-20000,3,50,201} RECS=${7:-tc,splice,kmod} FLOOD=${8:--}
T=/sys/kernel/tracing
O=${VM_OUT:-/out}
mkdir -p "$O/rec" "$O/loss" "$O/stack" "$O/flood" /tmp/vr

saved_on=$(cat $T/tracing_on)
saved_kb=$(cat $T/buffer_size_kb | sed 's/ .*//')
have_kmod=0 loaded=0
if grep -q '^ftring ' /proc/modules; then
	have_kmod=1
elif [ -e /vm/ftring.ko ] && insmod /vm/ftring.ko; then
	have_kmod=1 loaded=1
fi
have_tc=0
command -v trace-cmd >/dev/null && have_tc=1
echo "rec_cpus $(nproc)"
echo "rec_count $N"
echo "rec_kb $RKB"
echo "loss_kb $LKB"
echo "loss_ms $MS"

# ready NAME: the recorder NAME is recording (or has died: returns 1)
ready() {
	_i=0
	while [ $_i -lt 600 ]; do
		kill -0 "$RPID" 2>/dev/null || return 1
		case $1 in
		tc|splice) [ "$(cat $T/tracing_on)" = 1 ] && break ;;
		kmod) ftring_ctl stats 2>/dev/null | grep -q '^recording=1' && break ;;
		esac
		sleep 0.05
		_i=$((_i + 1))
	done
	# a recorder may turn tracing on before all its per-CPU readers run, and go on
	# setting up (metadata, threads) for a while: the load starts once the guest is
	# idle again, the recorder waiting for pages (idle guest time costs no wall time
	# under icount sleep=off)
	sleep 0.2
	settle
}

# settle: waits (at most 30 s) until the CPUs were at least 95% idle over 200 ms
settle() {
	_n=0
	while [ $_n -lt 150 ]; do
		# shellcheck disable=SC2046 # the fields of /proc/stat's "cpu" line
		set -- $(head -n 1 /proc/stat)
		_t0=$(($2 + $3 + $4 + $5 + $6 + $7 + $8)) _i0=$5
		sleep 0.2
		set -- $(head -n 1 /proc/stat)
		_t1=$(($2 + $3 + $4 + $5 + $6 + $7 + $8)) _i1=$5
		[ $(((_i1 - _i0) * 100)) -ge $(((_t1 - _t0) * 95)) ] && return 0
		_n=$((_n + 1))
	done
	echo "vm_recorder_guest: the guest never settled before a run" >&2
}

# start NAME KB FILE: runs recorder NAME in the background; RPID is vm_load's pid
start() {
	rm -f "$3" /tmp/vr/cpu
	case $1 in
	tc)
		vm_load cpu /tmp/vr/cpu trace-cmd record --file-version 7 --compression zstd \
			-b "$2" -e sched:sched_process_exec -o "$3" >/tmp/vr/log 2>&1 &
		;;
	splice)
		vm_load cpu /tmp/vr/cpu recorderd record -s splice -C zstd -b "$2" \
			-e sched:sched_process_exec -o "$3" >/tmp/vr/log 2>&1 &
		;;
	kmod)
		vm_load cpu /tmp/vr/cpu recorderd record -s kmod -C zstd -b "$2" -e marker \
			-o "$3" >/tmp/vr/log 2>&1 &
		;;
	esac
	RPID=$!
	ready "$1"
}

# stop PREFIX: SIGINT, wait, print PREFIX_user/_sys/_status
stop() {
	kill -INT "$RPID" 2>/dev/null
	wait "$RPID"
	if [ -s /tmp/vr/cpu ]; then
		read -r _ u _ s _ st </tmp/vr/cpu
	else
		u=0 s=0 st=255
	fi
	echo "${1}_user $u"
	echo "${1}_sys $s"
	echo "${1}_status $st"
}

marker_path() { [ "$1" = kmod ] && echo /dev/ftring/marker || echo $T/trace_marker; }

runnable() {
	case $1 in
	tc) [ $have_tc = 1 ] ;;
	kmod) [ $have_kmod = 1 ] ;;
	esac
}

reset_ftrace() {
	echo 0 >$T/tracing_on
	echo 0 >$T/events/enable
	echo >$T/trace
}
reset_ftrace

# under_load KEY NAME KB DEST LOAD...: recorder NAME (KB per CPU) records while
# `vm_load LOAD...` runs; prints KEY_written/_failed/_load_ns and the recorder's CPU
# (stop KEY), keeps its file and log as DEST.dat and DEST.log, puts ftrace back
under_load() {
	_k=$1 _r=$2 _kb=$3 _dst=$4 _f=/tmp/vr/load.dat
	shift 4
	start $_r "$_kb" $_f
	# shellcheck disable=SC2046 # "written N failed F ns T" split into $1..$6
	set -- $(vm_load "$@")
	echo "${_k}_written $2"
	echo "${_k}_failed $4"
	echo "${_k}_load_ns $6"
	stop "$_k"
	cp $_f "$_dst.dat" 2>/dev/null
	cp /tmp/vr/log "$_dst.log"
	rm -f $_f
	reset_ftrace
}

# --- 3. recorder cost: one big stream, and an idle run for the fixed costs -------------
for r in $(echo "$RECS" | tr , ' '); do
	[ "$N" != 0 ] && runnable $r || continue
	f=/tmp/vr/$r.dat
	start $r "$RKB" $f
	stop "rec_${r}_idle"
	rm -f $f
	under_load "rec_$r" $r "$RKB" "$O/rec/$r" markers "$(marker_path $r)" "$N" 0
	echo "rec_${r}_size $(stat -c %s "$O/rec/$r.dat" 2>/dev/null || echo 0)"
done

# --- 4. loss curve: rates swept upward, small fixed buffer ----------------------------
[ "$RATES" = - ] || echo "loss_rates $RATES"
for r in $(echo "$RECS" | tr , ' '); do
	[ "$RATES" != - ] && runnable $r || continue
	for rate in $(echo "$RATES" | tr , ' '); do
		under_load "loss_${r}_${rate}" $r "$LKB" "$O/loss/$r-$rate" \
			markers "$(marker_path $r)" $((rate * MS / 1000)) "$rate" 64 fifo
	done
done

# --- 4b. a flood on every CPU at once ----------------------------------------------
flood_part() {
	IFS=, read -r FKB FN <<-EOF_FLOOD
	$FLOOD
	EOF_FLOOD
	echo "flood_kb $FKB"
	echo "flood_count $FN"
	for r in $(echo "$RECS" | tr , ' '); do
		runnable $r || continue
		under_load "flood_${r}" $r "$FKB" "$O/flood/$r" flood "$(marker_path $r)" "$FN"
	done
}
[ "$FLOOD" = - ] || flood_part

# --- 5. whole stack: a recorder as shipped, under a workload ---------------------------
PP_EVENTS="sched:sched_switch sched:sched_wakeup"
FE_EVENTS="$PP_EVENTS sched:sched_wakeup_new sched:sched_process_fork
	sched:sched_process_exec sched:sched_process_exit"

# stack_start NAME FILE EVENTS: recorder NAME (tc or rd) with its defaults; RPID
stack_start() {
	_e=
	for _x in $3; do _e="$_e -e $_x"; done
	rm -f "$2"
	case $1 in
	# shellcheck disable=SC2086 # one -e per event
	tc) trace-cmd record $_e -o "$2" >/tmp/vr/log 2>&1 & ;;
	# shellcheck disable=SC2086
	rd) recorderd record $_e -o "$2" >/tmp/vr/log 2>&1 & ;;
	# shellcheck disable=SC2086
	rdnc) recorderd record -C none $_e -o "$2" >/tmp/vr/log 2>&1 & ;;
	esac
	RPID=$!
	if [ $1 != tc ] && [ $have_kmod = 1 ]; then ready kmod; else ready tc; fi
}

# stack_stop NAME LOAD: SIGINT, wait; keeps the file and log; prints the exit status
stack_stop() {
	kill -INT "$RPID" 2>/dev/null
	wait "$RPID"
	echo "stack_${1}_${2}_status $?"
	cp /tmp/vr/log "$O/stack/$1-$2.log"
	mv "/tmp/vr/$1-$2.dat" "$O/stack/$1-$2.dat" 2>/dev/null
	reset_ftrace
}

# stack_fe KEY: FE_RUNS fork/exec runs, one value each (the host takes the median)
stack_fe() {
	_i=1
	while [ $_i -le "$SFR" ]; do
		echo "stack_fe_${1}_$_i $(vm_pingpong forkexec "$SF" 1)"
		_i=$((_i + 1))
	done
}

stack_part() {
	IFS=, read -r SR SN SF SFR <<-EOF_STACK
	$STACK
	EOF_STACK
	echo "stack_rounds $SR"
	echo "stack_repeats $SN"
	echo "stack_forks $SF"
	echo "stack_fe_runs $SFR"

	[ $have_kmod = 1 ] && echo "stack_rd_source kmod ($(ftring_ctl show))" ||
		echo "stack_rd_source tracefs"
	echo "stack_pp_none $(vm_pingpong pingpong "$SR" "$SN")"
	stack_fe none
	for r in tc rd; do
		[ $r = rd ] || runnable $r || continue
		stack_start $r /tmp/vr/$r-pp.dat "$PP_EVENTS"
		echo "stack_pp_$r $(vm_pingpong pingpong "$SR" "$SN")"
		stack_stop $r pp
		stack_start $r /tmp/vr/$r-fe.dat "$FE_EVENTS"
		stack_fe $r
		stack_stop $r fe
	done
	stack_start rdnc /tmp/vr/rdnc-fe.dat "$FE_EVENTS"
	stack_fe rdnc
	stack_stop rdnc fe
}
[ "$STACK" = - ] || stack_part

[ $loaded = 1 ] && rmmod ftring
echo "$saved_kb" >$T/buffer_size_kb
echo "$saved_on" >$T/tracing_on
exit 0
