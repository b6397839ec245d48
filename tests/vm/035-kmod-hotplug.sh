#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A CPU first brought online after the module loaded (2 vCPUs, maxcpus=1) records from
# its first event: its buffer and device are made in the CPU's PREPARE stage, before
# it runs (tests/vm/guest/kmod-hotplug.sh).
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if [ ! -f "$VM_KO" ]; then
	t_skip kmod-hotplug "kmod/ftring.ko not built (make module)"
	t_done
fi
VM_APPEND="maxcpus=1" vm_test kmod-hotplug -c 2 -t 300 -- "$TOP/tests/vm/guest/kmod-hotplug.sh"
t_done
