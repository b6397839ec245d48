#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest suite again on Debian 12's 6.12 kernel (bookworm-security), with the
# module built for it (make module-6.12): every tests/vm/NNN-*.sh below 070 but 045,
# and the persistent-rings test 075 (which on 6.12 also compares with upstream's
# persistent instance), each of its cases reported here as 6.12.<test>.<case>. The
# power-cut test (070) checks the recorder and ext4 against a cut, not the module, and
# runs on 6.1 only (9 minutes). 045 smokes the recorder part of the guest benchmark,
# which runs on 6.1 only (vm_bench); 040, its producer part, runs here as
# `tests/bench/run vm_pingpong_6.12` does.
# On 6.12 the guest also records with the mmap source against upstream ftrace's own
# mmap ABI (6.10+), read back with trace-cmd on the host.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

kdir=$("$TOP/scripts/kdir" 6.12)
kver=${kdir#/usr/src/linux-headers-}
ko=$TOP/build/kmod-6.12/kmod/ftring.ko
if [ ! -d "$kdir" ] || [ ! -r "/boot/vmlinuz-$kver" ]; then
	t_fail kernel-6.12 "no Debian 6.12 kernel and headers (scripts/setup-deps installs them)"
	t_done
fi
if [ ! -f "$ko" ]; then
	t_fail kernel-6.12 "$ko not built (make module-6.12)"
	t_done
fi
t_eq kernel-6.12.module-vermagic "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$kver"

export VM_KVER=$kver FTRING_KO=$ko FTRING_SQUAT_KO=$TOP/build/kmod-6.12/squat/ftring_squat.ko
vm_suite 6.12 $(ls "$TOP"/tests/vm/0[0-6][0-9]-*.sh | grep -v /045-) \
	"$TOP"/tests/vm/075-*.sh

# recorderd's mmap source on upstream ftrace's own buffer mapping (Linux >= 6.10)
vm_test mmap-6.12 -c 2 --with-trace-cmd -- "$TOP/tests/vm/guest/mmap-upstream.sh"
dat=$VM_DIR/mmap.dat
if [ -s "$dat" ]; then
	n=$(trace-cmd report "$dat" 2>/dev/null | grep -c 'mmap-upstream-marker')
	t_eq 6.12.mmap.markers-in-report "$n" 200
	t_eq 6.12.mmap.sched-switch "$(trace-cmd report "$dat" 2>/dev/null | grep -q sched_switch && echo yes)" yes
else
	t_fail 6.12.mmap.file "no mmap.dat from the guest"
fi
t_done
