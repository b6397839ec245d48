#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of the mmap part of 090-kernel-6.12.sh: recorderd's mmap source on upstream
# ftrace's own per-CPU buffer mapping (Linux >= 6.10), in an instance of its own.
. /vm/guest/lib.sh
g_dmesg_mark
I=mmap612
T=/sys/kernel/tracing
recorderd record -s mmap -B $I -e sched -o /tmp/mmap.dat -- \
	sh -c "i=0; while [ \$i -lt 200 ]; do i=\$((i + 1)); echo mmap-upstream-marker \$i > $T/instances/$I/trace_marker; done" \
	>"$VM_OUT/mmap-record.txt" 2>&1
g_eq mmap.record-exit "$?" 0
cp /tmp/mmap.dat "$VM_OUT/mmap.dat"
g_check mmap.instance-removed test ! -e $T/instances/$I
g_dmesg_clean mmap.dmesg
