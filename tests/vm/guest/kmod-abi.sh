#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 010-kmod-abi.sh: load/unload, the device nodes, the mmap ABI
# kselftest and the ioctl fuzzer, with the kernel log checked after each step.
. /vm/guest/lib.sh
g_dmesg_mark

if ! insmod /vm/ftring.ko; then
	g_fail insmod "insmod /vm/ftring.ko failed: $(dmesg | tail -n 5)"
	exit 0
fi
g_ok insmod
g_dmesg_clean insmod.dmesg

# Device nodes: character devices, root only (0600).
devs="ctl marker"
for c in $(g_cpus); do devs="$devs cpu$c"; done
for d in $devs; do
	p=/dev/ftring/$d
	if [ ! -c "$p" ]; then
		g_fail "dev.$d" "$p is not a character device"
	else
		g_eq "dev.$d" "$(stat -c '%a %u %g' "$p")" "600 0 0"
	fi
done

g_kselftest map ftring_map_test
g_dmesg_clean map.dmesg

g_kselftest fuzz ftring_fuzz -n 100000 -d 15 -s "${1:-1}"
g_dmesg_clean fuzz.dmesg

g_check rmmod rmmod ftring
g_check rmmod.devices-gone test ! -e /dev/ftring/ctl
# A second load/unload cycle (leaks or stale state would show here).
g_check reload sh -c 'insmod /vm/ftring.ko && test -c /dev/ftring/ctl && rmmod ftring'
g_check reload.not-loaded sh -c '! grep -q "^ftring " /proc/modules'
g_dmesg_clean unload.dmesg
