#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ftring flood accounting on a 4-vCPU guest (tests/vm/progs/ftring_flood.c): per CPU a
# marker writer, an hrtimer ticker whose wake-ups, irq and softirq events nest into
# it, and a slow mmap reader on a 4-sub-buffer ring; discard and overwrite mode. Every
# count must balance exactly (entries = read + overrun, decoded = read, ENOSPC <= lost,
# discard keeps every written marker, overwrite keeps the newest). The mmap ABI test
# runs here too, for its CPU 2 and 3 fixtures.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if [ ! -f "$VM_KO" ]; then
	t_skip kmod-flood "kmod/ftring.ko not built (make module)"
	t_done
fi
for p in ftring_flood ftring_map_test; do
	[ -x "$VM_BDIR/vm/progs/$p" ] || { t_fail kmod-flood "build/vm/progs/$p missing (make)"; t_done; }
done
vm_test kmod-flood-smp4 -c 4 -t 600 -- "$TOP/tests/vm/guest/kmod-flood.sh" 3
t_done
