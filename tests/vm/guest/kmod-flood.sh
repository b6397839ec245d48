#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 030-kmod-flood.sh: the mmap ABI test on 4 CPUs, then ftring_flood in
# discard then overwrite mode on every vCPU, then with bursts of nested events, with
# the kernel log checked after each.
. /vm/guest/lib.sh
g_dmesg_mark
if ! insmod /vm/ftring.ko; then
	g_fail insmod "insmod /vm/ftring.ko failed: $(dmesg | tail -n 5)"
	exit 0
fi
g_ok insmod
# the per-CPU fixtures of the mmap ABI test, here on four CPUs
g_kselftest map ftring_map_test
g_dmesg_clean map.dmesg
g_kselftest flood-discard ftring_flood -m discard -n 4 -r "$FLOOD_READER_US" -d "${1:-3}"
g_dmesg_clean flood-discard.dmesg
g_kselftest flood-overwrite ftring_flood -m overwrite -n 4 -r "$FLOOD_READER_US" -d "${1:-3}"
g_dmesg_clean flood-overwrite.dmesg
# interrupts that each write a crowd's worth of events (128 wake-ups, about 1.5 of
# the 2 ring pages) into a writer they cut off: exact accounting all the same
g_kselftest flood-bursts-overwrite ftring_flood -m overwrite -n 2 -b 128 -p "$FLOOD_CROWD_US" -r "$FLOOD_READER_US" -d "${1:-3}"
g_dmesg_clean flood-bursts-overwrite.dmesg
g_kselftest flood-bursts-discard ftring_flood -m discard -n 2 -b 128 -p "$FLOOD_CROWD_US" -r "$FLOOD_READER_US" -d "${1:-3}"
g_dmesg_clean flood-bursts-discard.dmesg
g_check rmmod rmmod ftring
g_dmesg_clean rmmod.dmesg
