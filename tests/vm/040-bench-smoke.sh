#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tiny run of the in-guest tracer benchmark (tests/bench/vm_pingpong --smoke, one
# -smp 1 icount boot): every figure is produced and is a plausible number. Not timed,
# no threshold on the figures themselves.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if ! command -v qemu-system-x86_64 >/dev/null || [ ! -x "$TOP/build/vm/progs/vm_pingpong" ]; then
	t_skip bench-smoke "no qemu or build/vm/progs/vm_pingpong (make)"
	t_done
fi
vm_outdir bench-smoke
out=$VM_DIR
rep=$("$TOP/tests/bench/vm_pingpong" --smoke -o "$out" 2>&1)
t_eq bench-smoke.exit "$?" 0
echo "$rep" | sed 's/^/# /'
num='[0-9]+(\.[0-9]+)?'
t_check bench-smoke.untraced grep -qE "^  untraced +$num\$" <<<"$rep"
t_check bench-smoke.ftrace grep -qE "^  ftrace sched_sw\+wakeup +$num +$num +$num +$num\$" <<<"$rep"
if [ -f "$VM_KO" ]; then
	t_check bench-smoke.ftring grep -qE "^  ftring sched_sw\+wakeup +$num +$num +$num +$num\$" <<<"$rep"
	t_check bench-smoke.ratio grep -qE "^  ratio ftring/ftrace, added cost per event: $num " <<<"$rep"
	for b in 16 128 1024; do
		t_check "bench-smoke.marker-$b" grep -qE "^  $b +$num +$num +$num +-?$num +-?$num +$num net, $num raw\$" <<<"$rep"
	done
else
	t_skip bench-smoke.ftring "kmod/ftring.ko not built"
fi
t_done
