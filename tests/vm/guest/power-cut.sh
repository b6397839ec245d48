#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 070-power-cut.sh: `recorderd start` writes to an ext4 file system on a
# virtio disk (/dev/vda) while markers are written in batches; the host kills qemu at a
# moment of its choosing. After each batch and before its pause the guest appends the
# batch number to $VM_OUT/progress (9p: the host sees it at once), so the host knows
# when every batch was complete. A batch is 100 markers "pc B C N" from a task pinned
# to each CPU C. Arguments: SYNC_MS DURABILITY.
sync_ms=${1:-200}
dur=${2:-power}
O=$VM_OUT
T=/sys/kernel/tracing/instances/pc

mkdir -p /data
mount -t ext4 /dev/vda /data || { echo "mount /dev/vda failed" >"$O/error"; exit 1; }
mkdir -p /data/out
recorderd start -f --socket /tmp/pc.sock -i pc -s splice -d /data/out --durability "$dur" \
	-O sync_ms="$sync_ms" -O period_ms=100 >"$O/daemon.log" 2>&1 &
i=0
until recorderd status --socket /tmp/pc.sock >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "daemon did not start" >"$O/error"; exit 1; }
	sleep 0.1
done
echo 0 >>"$O/progress"
b=1
while :; do
	for c in $(seq 0 $((VM_CPUS - 1))); do
		taskset -c "$c" sh -c "n=1; while [ \$n -le 100 ]; do echo \"pc $b $c \$n\";
			n=\$((n + 1)); done >$T/trace_marker"
	done
	echo "$b" >>"$O/progress"
	sleep 0.7
	b=$((b + 1))
done
