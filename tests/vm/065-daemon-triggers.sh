#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Flight-mode triggers against the module in a 2-vCPU guest
# (tests/vm/guest/daemon-triggers.sh): a SIGSEGV, `recorderd trigger`, a hung task on a
# frozen filesystem and a memory-cgroup OOM each leave a trig-*.dat named after what
# fired, holding every marker written before the trigger, the record naming it and the
# markers of the window after it (read here with trace-cmd report); storms of 100
# triggers leave one file with a cooldown, trigger_max_files without.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if [ ! -f "$VM_KO" ]; then
	t_skip daemon-triggers "kmod/ftring.ko not built (make module)"
	t_done
fi
for t in trace-cmd mkfs.ext4; do
	command -v $t >/dev/null || { t_skip daemon-triggers "no $t on the host"; t_done; }
done
[ -x "$VM_BDIR/recorderd" ] || { t_fail daemon-triggers "build/recorderd missing"; t_done; }
# (not in VM_DIR: vm_test makes that anew)
img=$(mktemp "$TOP/build/vm/triggers-disk.XXXXXX")
truncate -s 16M "$img"
mkfs.ext4 -q -F "$img"
# The OOM killer's report prints the stack and user registers of its victim: expected
# here. A kernel-mode RIP (CS 0010) still fails.
VM_DMESG_BAD=${VM_DMESG_BAD/|Call Trace/}
VM_DMESG_BAD=${VM_DMESG_BAD/RIP: /RIP: 0010}
VM_QEMU_ARGS="-drive file=$img,if=virtio,format=raw" \
	vm_test daemon-triggers -c 2 -t 900 -- "$TOP/tests/vm/guest/daemon-triggers.sh"
rm -f "$img"

for kind in marker signal command hung-task oom; do
	dat=$VM_DIR/trig-$kind.dat rep=$VM_DIR/trig-$kind.txt
	[ -s "$dat" ] || continue
	trace-cmd report "$dat" >"$rep" 2>"$rep.err"
	t_check "$kind.report" test $? -eq 0 -a ! -s "$rep.err"
	t_check "$kind.name" grep -q "/trig-[0-9-]*\.[0-9]*-$kind" "$VM_DIR/trig-$kind.name"
	t_check "$kind.history" test "$(grep -oE "marker: +pre-$kind [0-9]+$" "$rep" |
		awk '{ print $3 }' | md5sum)" = "$(seq 1 200 | md5sum)"
	t_check "$kind.trigger-record" grep -q "marker: *recorderd-trigger: " "$rep"
	t_check "$kind.window" test "$(grep -oE "marker: +post-$kind [0-9]+$" "$rep" |
		awk '{ print $3 }' | md5sum)" = "$(seq 1 20 | md5sum)"
done
t_check signal.task-named grep -q "signal-sh.dat$" "$VM_DIR/trig-signal.name"
t_done
