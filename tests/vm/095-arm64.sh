#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The core of the guest suite on arm64, as on most field devices: Debian 12's arm64
# 6.1 kernel under qemu-system-aarch64 (TCG, virt board, Cortex-A57), with recorderd,
# the guest programs and the module cross-built by `make arm64` against a Debian arm64
# root (scripts/arm64-sysroot). Each case is reported as arm64.<test>.<case>:
#   001 boot, 010 the module's ABI and mmap test with the ioctl fuzzer, 020 every
#   event type with its fields, `recorderd record -s kmod` read back here by trace-cmd
#   and KernelShark, the flood with exact accounting, rmmod under load; 030 the flood
#   on 4 vCPUs; 035 CPU hotplug; 050 FXT; 060 the daemon on the module.
# Left to x86-64 (nothing in them depends on the architecture): the benchmarks
# (040, 045: icount figures), 065 (trigger logic, 3 minutes here), 070 (the recorder
# and ext4 against a power cut) and 075 (persistent rings: memmap= is x86-only, and
# reserve_mem= needs 6.11). About 4 minutes.
export VM_ARCH=arm64	# before lib.sh: VM_BDIR and VM_KO are the arm64 ones
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"
for f in "$VM_BDIR/recorderd" "$VM_KO"; do
	[ -f "$f" ] || { t_fail arm64 "$f not built (make arm64)"; t_done; }
done
t_eq arm64.recorderd-is-arm64 "$(readelf -h "$VM_BDIR/recorderd" | awk '/Machine:/ { print $2 }')" AArch64
root=$("$TOP/scripts/arm64-sysroot") || { t_fail arm64 "no arm64 root (scripts/arm64-sysroot)"; t_done; }
kver=$(ls "$root/lib/modules" | sort -V | tail -n 1)
t_eq arm64.module-vermagic "$(modinfo -F vermagic "$VM_KO" | cut -d' ' -f1)" "$kver"

vm_suite arm64 "$TOP"/tests/vm/00[0-9]-*.sh "$TOP"/tests/vm/0[1-3][0-9]-*.sh \
	"$TOP"/tests/vm/05[0-9]-*.sh "$TOP"/tests/vm/06[0-4]-*.sh
t_done
