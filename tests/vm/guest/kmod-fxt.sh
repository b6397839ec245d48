#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 050-kmod-fxt.sh: /dev/ftring/fxt's node, the kselftest
# (tests/vm/progs/ftring_fxt_test.c), then a recorderd capture of the module while
# `ftring_fxt_test emit` writes one FXT record of each kind; the host reads it.
. /vm/guest/lib.sh
O=${VM_OUT:-/out}
g_dmesg_mark

if ! insmod /vm/ftring.ko; then
	g_fail insmod "insmod /vm/ftring.ko failed: $(dmesg | tail -n 5)"
	exit 0
fi
g_ok insmod
if [ -c /dev/ftring/fxt ]; then
	g_eq dev.fxt "$(stat -c '%a %u %g' /dev/ftring/fxt)" "600 0 0"
else
	g_fail dev.fxt "/dev/ftring/fxt is not a character device"
fi

g_kselftest fxt ftring_fxt_test
g_dmesg_clean fxt.dmesg

# The capture the host checks: sched events for context, the ftring system (marker,
# fxt) for the records; the emitter prints its pid, tid and what it wrote.
if [ -x /vm/bin/recorderd ]; then
	recorderd record -s kmod -e sched -e ftring -o /tmp/fxt.dat -- \
		sh -c 'ftring_fxt_test emit >/tmp/emit.txt' >"$O/record.txt" 2>&1
	g_eq record.exit "$?" 0
	cat "$O/record.txt"
	cp /tmp/emit.txt "$O/emit.txt"
	cp /tmp/fxt.dat "$O/fxt.dat"
	g_check record.emitted grep -q '^emit pid=' "$O/emit.txt"
	g_check record.file test -s "$O/fxt.dat"
else
	g_skip record "no recorderd in the guest"
fi
g_dmesg_clean record.dmesg

g_check rmmod rmmod ftring
g_dmesg_clean unload.dmesg
