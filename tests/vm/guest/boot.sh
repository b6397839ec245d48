#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 001-boot.sh: the environment tests/vm/run promises.
. /vm/guest/lib.sh
g_eq args "$#:$1|$2" "2:one|two words"
g_eq cpus "$(g_cpus | wc -l)" "$VM_CPUS"
g_check tracefs test -w /sys/kernel/tracing/trace_marker
g_check devtmpfs test -c /dev/null
g_eq kernel "$(uname -r)" "$VM_KVER"
g_check recorderd-runs sh -c '[ ! -e /vm/bin/recorderd ] || /vm/bin/recorderd --help >/dev/null 2>&1 ||
	/vm/bin/recorderd help >/dev/null 2>&1 || [ $? -lt 126 ]'
# Time must advance (under icount it is instruction-driven).
t0=$(cut -d' ' -f1 /proc/uptime); i=0; while [ $i -lt 2000 ]; do i=$((i + 1)); done
t1=$(cut -d' ' -f1 /proc/uptime)
g_check clock-advances awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b > a) }'
echo "payload-$VM_CPUS" >"$VM_OUT/payload.txt"
exit 7
