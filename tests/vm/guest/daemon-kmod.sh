#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 060-daemon-kmod.sh (2 vCPUs): `recorderd start -s kmod` against the
# module, run in the foreground in the background so its exit status is known.
#  1. flight mode on a small overwrite ring: a burst of numbered markers from one CPU,
#     larger than the ring, then `snapshot` ($VM_OUT/flight.dat, module stats in
#     flight-stats.txt), two snapshots named by a pattern without %# in one second,
#     and `stop`;
#  2. stream mode: rmmod is refused while the daemon holds the devices, status still
#     answers, stop finalizes $VM_OUT/rmmod.dat holding markers 1..N;
#  3. stream mode with a marker writer on each CPU while cpu1 goes offline and back:
#     the daemon keeps going, stop finalizes $VM_OUT/hotplug.dat (writer counts in
#     hotplug-counts.txt, status in hotplug-status.txt).
# The host checks the files with trace-cmd report; the kernel log must stay clean.
. /vm/guest/lib.sh
g_dmesg_mark
O=$VM_OUT

if ! insmod /vm/ftring.ko; then
	g_fail insmod "insmod /vm/ftring.ko failed: $(dmesg | tail -n 5)"
	exit 0
fi
g_ok insmod

# d_start NAME ARGS...: recorderd start -f on socket /tmp/NAME.sock, output /tmp/NAME,
# log $O/NAME.log; DPID is its pid once its socket answers.
d_start() {
	_n=$1; shift
	mkdir -p "/tmp/$_n"
	recorderd start -f --socket "/tmp/$_n.sock" -d "/tmp/$_n" "$@" >"$O/$_n.log" 2>&1 &
	DPID=$!
	_i=0
	while [ $_i -lt 300 ]; do
		recorderd status --socket "/tmp/$_n.sock" >/dev/null 2>&1 && return 0
		kill -0 $DPID 2>/dev/null || break
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}
# d_stop NAME CHECK: recorderd stop, then the daemon must exit 0.
d_stop() {
	g_check "$2.stop" recorderd stop --socket "/tmp/$1.sock" --timeout 60
	_i=0
	while kill -0 $DPID 2>/dev/null && [ $_i -lt 300 ]; do sleep 0.1; _i=$((_i + 1)); done
	if kill -0 $DPID 2>/dev/null; then
		g_fail "$2.daemon-exit" "daemon still running 30 s after stop"
		kill -9 $DPID
		wait $DPID
	else
		wait $DPID
		g_eq "$2.daemon-exit" "$?" 0
	fi
}
# The marker writer: TAG LAST writes "TAG 1".."TAG LAST", one write() each; with LAST 0
# it writes until /tmp/TAG.stop exists. Prints how many it wrote.
cat >/tmp/writer.sh <<'EOF'
i=1
while if [ "$2" -eq 0 ]; then [ ! -e "/tmp/$1.stop" ]; else [ $i -le "$2" ]; fi; do
	echo "$1 $i"
	i=$((i + 1))
done >/dev/ftring/marker
echo $((i - 1))
EOF

# --- 1. flight mode: the snapshot holds the newest markers --------------------------
# 64 KiB per CPU = 16 sub-buffers: 6000 markers are several times the ring.
NF=6000
if d_start fl -s kmod --mode flight -b 64 -e marker -O file_pattern=fl-%Y%m%d-%H%M%S.dat; then
	g_ok flight.start
	# one CPU, so that its ring alone holds them
	g_eq flight.writer "$(taskset -c 0 sh /tmp/writer.sh fl $NF)" $NF
	ftring_ctl stats >"$O/flight-stats.txt" 2>&1
	recorderd status --socket /tmp/fl.sock >"$O/flight-status.txt" 2>&1
	g_eq flight.status "$?" 0
	recorderd snapshot --socket /tmp/fl.sock -o /tmp/flight.dat >"$O/flight-snapshot.txt" 2>&1
	g_eq flight.snapshot "$?" 0
	cp /tmp/flight.dat "$O/flight.dat" 2>/dev/null
	g_check flight.snapshot-file test -s "$O/flight.dat"
	# to another filesystem (/out is 9p): the work file is copied there, then removed
	before=$(ls /tmp/fl | wc -l)
	recorderd snapshot --socket /tmp/fl.sock -o "$O/flight-xdev.dat" >"$O/flight-xdev.txt" 2>&1
	g_eq flight.snapshot-other-fs "$?" 0
	g_check flight.snapshot-other-fs-file test -s "$O/flight-xdev.dat"
	g_eq flight.snapshot-other-fs-moved "$(ls /tmp/fl | wc -l)" "$before"
	# Named by the pattern, which has no %#: the next work file, named in the same
	# second, must not take the snapshot's name.
	for n in 1 2; do
		recorderd snapshot --socket /tmp/fl.sock >"$O/flight-named-$n.txt" \
			2>"$O/flight-named-$n.err"
		g_eq flight.snapshot-named-$n "$?" 0
		g_check flight.snapshot-named-$n-file test -s "$(cat "$O/flight-named-$n.txt")"
	done
	g_eq flight.snapshot-named-differ "$(sort -u "$O"/flight-named-[12].txt | wc -l)" 2
	echo "$NF" >"$O/flight-written.txt"
	d_stop fl flight
else
	g_fail flight.start "recorderd start failed: $(tail -n 3 "$O/fl.log")"
	kill $DPID 2>/dev/null
fi
g_dmesg_clean flight.dmesg

# --- 2. the source cannot go away under the daemon ----------------------------------
NR=2000
if d_start rm -s kmod --mode stream -b 256 -e marker; then
	g_ok rmmod.start
	g_eq rmmod.writer "$(sh /tmp/writer.sh rm $NR)" $NR
	# The daemon's open device files hold module references.
	refs=$(awk '$1 == "ftring" { print $3 }' /proc/modules)
	if [ "${refs:-0}" -gt 0 ]; then g_ok rmmod.module-referenced; else
		g_fail rmmod.module-referenced "ftring refcount '${refs}' while the daemon records"; fi
	out=$(rmmod ftring 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		g_fail rmmod.refused "rmmod succeeded while the daemon records"
		insmod /vm/ftring.ko
	else
		g_ok rmmod.refused
		# delete_module(2) with O_NONBLOCK (busybox) on a module in use: EWOULDBLOCK
		# (EAGAIN); EBUSY would mean the module is not live.
		if echo "$out" | grep -q 'Resource temporarily unavailable'; then
			g_ok rmmod.in-use-ewouldblock
		else
			g_fail rmmod.in-use-ewouldblock "rmmod said '$out', want EWOULDBLOCK (in use)"
		fi
	fi
	g_check rmmod.module-loaded grep -q '^ftring ' /proc/modules
	recorderd status --socket /tmp/rm.sock >"$O/rmmod-status.txt" 2>&1
	g_eq rmmod.status-after "$?" 0
	g_check rmmod.status-running grep -q '^recorderd: running' "$O/rmmod-status.txt"
	d_stop rm rmmod
	n=$(ls /tmp/rm/*.dat 2>/dev/null | wc -l)
	g_eq rmmod.one-file "$n" 1
	cp /tmp/rm/*.dat "$O/rmmod.dat" 2>/dev/null
	echo "$NR" >"$O/rmmod-written.txt"
	# Once the daemon let go, the module unloads and comes back.
	g_check rmmod.after-stop sh -c 'rmmod ftring && insmod /vm/ftring.ko'
else
	g_fail rmmod.start "recorderd start failed: $(tail -n 3 "$O/rm.log")"
	kill $DPID 2>/dev/null
fi
g_dmesg_clean rmmod.dmesg

# --- 3. cpu1 offline and back during a stream capture -------------------------------
if [ ! -w /sys/devices/system/cpu/cpu1/online ]; then
	g_skip hotplug "cpu1 cannot go offline"
elif d_start hp -s kmod --mode stream -b 256 -e marker -O clock=global; then
	g_ok hotplug.start
	rm -f /tmp/hp0.stop /tmp/hp1.stop
	# Each writer runs until told to stop and then says how many it wrote.
	wp=
	for c in 0 1; do
		taskset -c $c sh /tmp/writer.sh hp$c 0 >/tmp/hp$c.count &
		wp="$wp $!"
	done
	sleep 2
	g_check hotplug.offline sh -c 'echo 0 > /sys/devices/system/cpu/cpu1/online'
	sleep 2
	recorderd status --socket /tmp/hp.sock >"$O/hotplug-status-offline.txt" 2>&1
	g_eq hotplug.status-offline "$?" 0
	g_check hotplug.online sh -c 'echo 1 > /sys/devices/system/cpu/cpu1/online'
	sleep 2
	touch /tmp/hp0.stop /tmp/hp1.stop
	wait $wp
	recorderd status --socket /tmp/hp.sock >"$O/hotplug-status.txt" 2>&1
	g_eq hotplug.status-after "$?" 0
	g_check hotplug.status-running grep -q '^recorderd: running' "$O/hotplug-status.txt"
	ftring_ctl stats >"$O/hotplug-stats.txt" 2>&1
	echo "hp0 $(cat /tmp/hp0.count) hp1 $(cat /tmp/hp1.count)" >"$O/hotplug-counts.txt"
	d_stop hp hotplug
	n=$(ls /tmp/hp/*.dat 2>/dev/null | wc -l)
	g_eq hotplug.one-file "$n" 1
	cp /tmp/hp/*.dat "$O/hotplug.dat" 2>/dev/null
else
	g_fail hotplug.start "recorderd start failed: $(tail -n 3 "$O/hp.log")"
	kill $DPID 2>/dev/null
fi
g_dmesg_clean hotplug.dmesg
rmmod ftring
g_dmesg_clean unload.dmesg
