#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ftring module ABI in a 2-vCPU guest: load/unload, /dev/ftring nodes (0600), the
# kselftest-harness mmap ABI test (tests/vm/progs/ftring_map_test.c: meta page, mapping
# rules, overwrite/discard semantics, a marker whose text is zapped during its copy,
# control ioctls) and a random-ioctl fuzzer; the guest's kernel log must stay free of
# warnings.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if [ ! -f "$VM_KO" ]; then
	t_skip kmod-abi "kmod/ftring.ko not built (make module)"
	t_done
fi
for p in ftring_map_test ftring_watch_test ftring_fuzz; do
	[ -x "$VM_BDIR/vm/progs/$p" ] || { t_fail kmod-abi "build/vm/progs/$p missing (make)"; t_done; }
done
seed=${FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d " ")}
echo "# fuzz seed $seed (FUZZ_SEED=$seed reproduces)"
# 512 MiB: rings of 65536 sub-buffers on both CPUs cannot fit (ctl.resize_beyond_memory)
vm_test kmod-abi -c 2 -m 512 -t 600 -- "$TOP/tests/vm/guest/kmod-abi.sh" "$seed"
t_done
