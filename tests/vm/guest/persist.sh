#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 075-persist.sh: two boots of one qemu (tests/vm/run --reboot), the
# region reserved with memmap=16M$256M on the kernel command line.
#   persist.sh MODE [PERSIST]   (MODE: sysrq | hung-corrupt | upstream; PERSIST: the
#                                module parameter, default 16M@0x10000000)
# upstream (Linux >= 6.12): the region is a reserve_mem= LABEL, and upstream's own
# persistent instance boot_map (trace_instance=boot_map@ADDR:SIZE on the command line)
# gets the same markers; boot 2 reads it with `recorderd record -s splice -B boot_map`
# ($VM_OUT/upstream.dat) to compare what each kept after the same crash.
# Boot 1 ($VM_OUT/stage absent):
#   - sysrq: recorderd lastboot says why there is nothing (module absent, loaded
#     without persist=, cold region: exit 3 each);
#   - hung-corrupt: the region is filled with garbage first (a bad region on a cold
#     boot: still exit 3, nothing crashes), and the module gets its first 8M only;
#   then ftring with persist=, `recorderd start` (flight mode, kmod: it saves the boot
#   record), markers "pre 1..N" pinned on CPU 0 (several times the ring), markers on
#   CPU 1, "last-before-crash" on CPU 0, and the crash: sysrq-c (panic() at once), or a
#   hung task on a frozen ext4 with hung_task_panic (the panic comes from khungtaskd).
# Boot 2 ($VM_OUT/stage = 1):
#   - hung-corrupt: CORRUPT_PAGES sub-buffers of CPU 0 get garbage through /dev/mem
#     before the module loads (the layout from boot 1's log); a load on 4M, which
#     cannot read boot 1's 8M, is refused and leaves the trace alone; the load on all
#     16M reads it as boot 1 laid it out;
#   - a load of ftring that fails late (tests/vm/squat holds a device name) leaves
#     the trace in the region;
#   - ftring with persist=: what it kept and dropped (dmesg), `recorderd lastboot`
#     ($VM_OUT/last.dat, timed from insmod), a second readout, then `recorderd start`
#     saves lastboot-<boot id>.dat in its output directory and releases the module's
#     copy (a third readout: exit 3), status says where the trace went; before that,
#     rmmod is refused (the module holds itself while a crash's trace is unread);
#   - rmmod and insmod again: boot 2's own trace comes back, marked as ended cleanly;
#     `recorderd start` frees it unsaved (not a crash) and says so in status.
# The host reads the files with trace-cmd report.
. /vm/guest/lib.sh
O=$VM_OUT
MODE=$1
PERSIST=${2:-16M@0x10000000}
UP=/sys/kernel/tracing/instances/boot_map
BASE=$((0x10000000))
CORRUPT_FIRST=600
CORRUPT_PAGES=5
NMARK=300000
export RECORDERD_STATE_DIR=$O/state

# d_start NAME DIR: recorderd start in flight mode on the module, socket /tmp/NAME.sock
d_start() {
	mkdir -p "$2"
	recorderd start -f --socket "/tmp/$1.sock" -d "$2" -s kmod --mode flight \
		-e sched -e marker -e printk >"$O/$1.log" 2>&1 &
	DPID=$!
	_i=0
	while [ $_i -lt 600 ]; do
		recorderd status --socket "/tmp/$1.sock" >/dev/null 2>&1 && return 0
		kill -0 $DPID 2>/dev/null || break
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}
d_stop() {
	recorderd stop --socket "/tmp/$1.sock" --timeout 60 >/dev/null 2>&1
	wait $DPID
	g_eq "$1.daemon-exit" "$?" 0
}
# lb_none NAME WHY-PATTERN: recorderd lastboot exits 3 saying why
lb_none() {
	_o=$(recorderd lastboot -o /tmp/none.dat 2>&1)
	_rc=$?
	g_eq "$1.exit-3" "$_rc" 3
	if echo "$_o" | grep -q "$2"; then g_ok "$1.message"; else
		g_fail "$1.message" "said '$_o', want /$2/"; fi
	g_check "$1.no-file" test ! -e /tmp/none.dat
}

stage=$(cat "$O/stage" 2>/dev/null)
if [ -z "$stage" ]; then
	# ---------------------------------------------------------------- boot 1
	g_dmesg_mark
	lb_none boot1.no-module "module is not loaded"
	if [ "$MODE" = sysrq ]; then
		insmod /vm/ftring.ko || { g_fail boot1.insmod "plain insmod failed"; exit 1; }
		lb_none boot1.no-persist "without persist="
		rmmod ftring
	elif [ "$MODE" = hung-corrupt ]; then
		# a cold boot's region may hold anything
		dd if=/dev/urandom of=/dev/mem bs=4096 seek=$((BASE / 4096)) count=4096 \
			conv=notrunc 2>/dev/null
		g_eq boot1.garbage-written "$?" 0
	fi
	P1=$PERSIST
	[ "$MODE" = hung-corrupt ] && P1=8M@$BASE
	if ! insmod /vm/ftring.ko persist=$P1; then
		g_fail boot1.insmod "insmod persist=$P1 failed: $(dmesg | tail -n 3)"
		exit 1
	fi
	g_ok boot1.insmod
	g_check boot1.cold-region sh -c 'dmesg | grep -q "persist: no previous-boot trace"' 
	lb_none boot1.cold "held no trace"
	dmesg | grep "ftring: persist:" >"$O/boot1-persist.txt"
	cat /proc/sys/kernel/random/boot_id >"$O/boot1-id.txt"
	grep ' [Tt] schedule$' /proc/kallsyms | head -n 1 >"$O/boot1-sym.txt"
	# sub-buffers per CPU: what the ring can hold
	if ! d_start d1 /tmp/d1; then
		g_fail boot1.start "recorderd start: $(tail -n 3 "$O/d1.log")"
		exit 1
	fi
	g_ok boot1.start
	g_check boot1.boot-record test -s "$RECORDERD_STATE_DIR/boots/$(cat "$O/boot1-id.txt").dat"
	recorderd status --socket /tmp/d1.sock >"$O/boot1-status.txt" 2>&1
	g_check boot1.status-lastboot-none grep -q "last boot: *none" "$O/boot1-status.txt"
	if [ "$MODE" = upstream ]; then
		g_check boot1.upstream-instance test -d $UP
		echo 1 >$UP/events/sched/sched_switch/enable
		echo 1 >$UP/tracing_on
	fi
	taskset -c 1 ftring_markers cpu1 1 2000 &
	W1=$!
	taskset -c 0 ftring_markers pre 1 $NMARK
	g_eq boot1.markers "$?" 0
	wait $W1
	if [ "$MODE" = upstream ]; then
		taskset -c 1 ftring_markers -m $UP/trace_marker cpu1 1 2000 &
		W1=$!
		taskset -c 0 ftring_markers -m $UP/trace_marker pre 1 $NMARK
		g_eq boot1.upstream-markers "$?" 0
		wait $W1
		taskset -c 0 ftring_markers -m $UP/trace_marker last-before-crash 1 1
	fi
	taskset -c 0 ftring_markers last-before-crash 1 1
	echo $NMARK >"$O/written.txt"
	echo 1 >"$O/stage"
	sync
	echo 1 >/proc/sys/kernel/sysrq
	if [ "$MODE" != hung-corrupt ]; then
		echo c >/proc/sysrq-trigger
	else
		mkdir -p /mnt
		mount -t ext4 /dev/vda /mnt || { g_fail boot1.mount "no /dev/vda"; exit 1; }
		echo 1 >/proc/sys/kernel/hung_task_panic
		echo 1 >/proc/sys/kernel/hung_task_timeout_secs
		fsfreeze --freeze /mnt
		# blocks in D state on the frozen fs until khungtaskd panics
		echo x >/mnt/blocked
	fi
	sleep 120
	g_fail boot1.crash "still running after the crash"
	exit 1
fi

# -------------------------------------------------------------------- boot 2
echo 2 >"$O/stage"
g_dmesg_mark
if [ "$MODE" = hung-corrupt ]; then
	# page of sub-buffer I of CPU 0: from boot 1's layout line
	layout=$(grep -o "from page [0-9]* (meta, [0-9]* descriptor" "$O/boot1-persist.txt")
	first=$(echo "$layout" | awk '{ print $3 }')
	desc=$(echo "$layout" | awk '{ print $6 }')
	i=0
	while [ $i -lt $CORRUPT_PAGES ]; do
		pg=$((BASE / 4096 + first + 1 + desc + CORRUPT_FIRST + i))
		# 64 bytes in the middle of the events
		dd if=/dev/urandom of=/dev/mem bs=64 seek=$((pg * 64 + 32)) count=1 conv=notrunc \
			2>/dev/null || g_fail boot2.corrupt "dd to page $pg failed"
		i=$((i + 1))
	done
	echo "$CORRUPT_PAGES" >"$O/corrupted.txt"
	# a mistaken persist=: refused, the crash's trace left as it is
	if insmod /vm/ftring.ko persist=4M@$BASE 2>/dev/null; then
		g_fail boot2.smaller-refused "persist=4M loaded over boot 1's 8M trace"
		rmmod ftring
	else
		g_ok boot2.smaller-refused
	fi
	g_check boot2.smaller-said sh -c 'dmesg | grep -q "persist: the region holds a previous boot.s trace written in 8388608 bytes"'
fi
# a load that fails after it read the region (ftring_squat.ko holds the name of the
# marker device) leaves the crash's trace in the region for the next one
if [ -f /vm/ftring_squat.ko ] && insmod /vm/ftring_squat.ko; then
	g_dmesg_clean boot2.dmesg-before-failed-load
	g_dmesg_expect_from
	if insmod /vm/ftring.ko persist=$PERSIST 2>/dev/null; then
		g_fail boot2.failed-load "loaded beside ftring_squat"
		rmmod ftring
	else
		g_ok boot2.failed-load
	fi
	rmmod ftring_squat
	# it failed where it was made to, after reading the region; its only complaint
	# is the stack sysfs dumps for the duplicate name (left out of the host's check)
	dmesg | tail -n +"$G_EXPECT_FROM" >"$O/failed-load.txt"
	g_check boot2.failed-load-late grep -q "cannot create duplicate filename '/devices/virtual/misc/ftring_marker'" "$O/failed-load.txt"
	g_check boot2.failed-load-read grep -q "ftring: persist: previous boot (sealed at a panic)" "$O/failed-load.txt"
	g_check boot2.failed-load-not-pinned sh -c "! grep -q 'sub-buffers per CPU, ABI\|module stays loaded' '$O/failed-load.txt'"
	g_check boot2.failed-load-dmesg sh -c "! grep -E '$G_BAD' '$O/failed-load.txt' | grep -v 'Call Trace:\$\|RIP: 0033:'"
	g_dmesg_expect_to
else
	g_fail boot2.failed-load "no /vm/ftring_squat.ko, or it did not load (make vm-squat)"
fi
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
t0=$(ms)
if ! insmod /vm/ftring.ko persist=$PERSIST; then
	g_fail boot2.insmod "insmod failed: $(dmesg | tail -n 3)"
	exit 1
fi
recorderd lastboot -o "$O/last.dat" >"$O/lastboot.txt" 2>&1
rc=$?
t1=$(ms)
echo $((t1 - t0)) >"$O/lastboot-ms.txt"
g_eq boot2.lastboot "$rc" 0
cat "$O/lastboot.txt"
# this load's lines only (not the failed one's)
dmesg | tail -n +"$((G_DMESG_MARK + 1))" | grep "ftring: persist:" >"$O/boot2-persist.txt"
cat /proc/sys/kernel/random/boot_id >"$O/boot2-id.txt"
grep ' [Tt] schedule$' /proc/kallsyms | head -n 1 >"$O/boot2-sym.txt"
[ "$MODE" = hung-corrupt ] &&
	g_check boot2.grown-region grep -q "persist: the previous boot's region was 8388608 bytes" "$O/boot2-persist.txt"
g_check boot2.names-boot1 grep -q "boot $(cat "$O/boot1-id.txt")" "$O/lastboot.txt"
g_check boot2.sealed grep -q "sealed at a panic" "$O/lastboot.txt"
g_check boot2.symbols sh -c "! grep -q 'no kallsyms' '$O/lastboot.txt'"
if [ "$MODE" = upstream ]; then
	# what upstream's persistent instance kept, read as it is (no new events)
	echo 0 >$UP/tracing_on
	recorderd record -s splice -B boot_map --keep -o "$O/upstream.dat" -- true \
		>"$O/upstream.txt" 2>&1
	g_eq boot2.upstream-record "$?" 0
fi
recorderd lastboot -o /tmp/again.dat >/dev/null 2>&1
g_eq boot2.lastboot-again "$?" 0
# an unload now would free the crash's only copy: refused until it is released
if rmmod ftring 2>/dev/null; then
	g_fail boot2.rmmod-refused "rmmod freed the crash's trace unsaved"
	insmod /vm/ftring.ko persist=$PERSIST
else
	g_check boot2.rmmod-refused sh -c '[ "$(cat /sys/module/ftring/refcnt)" = 1 ] &&
		[ -e /dev/ftring/lastboot ]'
fi
g_check boot2.pinned-said grep -q "persist: the module stays loaded until" "$O/boot2-persist.txt"
if d_start d2 "$O/d2"; then
	g_ok boot2.start
	recorderd status --socket /tmp/d2.sock >"$O/boot2-status.txt" 2>&1
	g_check boot2.status-lastboot grep -q "last boot: *$O/d2/lastboot-$(cat "$O/boot1-id.txt").dat: [0-9]* events" "$O/boot2-status.txt"
	g_check boot2.daemon-file test -s "$O/d2/lastboot-$(cat "$O/boot1-id.txt").dat"
	lb_none boot2.released "released already"
	d_stop d2
else
	g_fail boot2.start "recorderd start: $(tail -n 3 "$O/d2.log")"
fi
# No panic: unloading and loading again keeps what was recorded (the rings stay in the
# region), marked as an orderly end, checked by structure only (no seal). The daemon
# frees such a trace without saving it: not a crash.
if rmmod ftring && insmod /vm/ftring.ko persist=$PERSIST; then
	recorderd lastboot -o "$O/unsealed.dat" >"$O/unsealed.txt" 2>&1
	g_eq reload.lastboot "$?" 0
	g_check reload.ended-cleanly grep -q "ended cleanly" "$O/unsealed.txt"
	g_check reload.this-boot grep -q "boot $(cat "$O/boot2-id.txt")" "$O/unsealed.txt"
	g_check reload.events grep -q ": [1-9][0-9]* events" "$O/unsealed.txt"
	# a clean end is no crash: it does not hold the module
	g_eq reload.not-pinned "$(cat /sys/module/ftring/refcnt)" 0
	if d_start d3 /tmp/d3; then
		recorderd status --socket /tmp/d3.sock >"$O/reload-status.txt" 2>&1
		g_check reload.status-not-saved grep -q "last boot: *boot $(cat "$O/boot2-id.txt") ended cleanly.*not saved" "$O/reload-status.txt"
		g_check reload.no-file sh -c '! ls /tmp/d3/lastboot-* 2>/dev/null'
		lb_none reload.released "released already"
		d_stop d3
	else
		g_fail reload.start "recorderd start: $(tail -n 3 "$O/d3.log")"
	fi
else
	g_fail reload.insmod "rmmod/insmod failed: $(dmesg | tail -n 3)"
fi
g_dmesg_clean boot2.dmesg
exit 0
