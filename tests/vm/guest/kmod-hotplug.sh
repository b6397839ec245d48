#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 035-kmod-hotplug.sh, booted with maxcpus=1: cpu1 has never been online
# when the module loads. Onlined while recording, it must have its buffer before it
# runs anything: its first events (the idle task switching to the CPU's first thread)
# are in the buffer.
. /vm/guest/lib.sh
g_dmesg_mark
O=$VM_OUT
g_eq hotplug.cpu1-offline-at-boot "$(cat /sys/devices/system/cpu/cpu1/online)" 0
if ! insmod /vm/ftring.ko; then
	g_fail insmod "insmod failed: $(dmesg | tail -n 3)"
	exit 0
fi
g_check hotplug.no-cpu1-device-yet test ! -e /dev/ftring/cpu1
ftring_ctl config 256 discard >/dev/null && ftring_ctl reset && ftring_ctl events all &&
	ftring_ctl start
g_check hotplug.online sh -c 'echo 1 > /sys/devices/system/cpu/cpu1/online'
sleep 1
taskset 2 sh -c 'echo first-online > /dev/ftring/marker'
ftring_ctl stop
g_check hotplug.cpu1-device test -c /dev/ftring/cpu1
ftring_ctl dump >"$O/hotplug.txt" 2>/dev/null
grep -m 3 '^cpu=1 ' "$O/hotplug.txt"
# the CPU's very first switch is away from its idle task
first=$(grep -m 1 -E '^cpu=1 .* sched_switch ' "$O/hotplug.txt")
g_check hotplug.first-switch-from-idle sh -c "echo '$first' | grep -q 'prev_comm=swapper/1 '"
g_check hotplug.marker grep -qE '^cpu=1 .* marker .* buf=first-online$' "$O/hotplug.txt"
ftring_ctl stats | grep '^cpu=1 '
g_dmesg_clean hotplug.dmesg
