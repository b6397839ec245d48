#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of `make demo` (run by tests/vm/run): loads ftring.ko, records SECONDS of
# the module's events (sched, irq, softirq, markers) with `recorderd record -s kmod`
# while a small workload runs, and leaves the file in /out/kmod.dat.
secs=${1:-3}
insmod /vm/ftring.ko || { echo "demo-guest: insmod failed"; dmesg | tail -n 5; exit 1; }
cat >/tmp/workload.sh <<WORKLOAD
end=\$((\$(date +%s) + $secs))
i=0
while [ "\$(date +%s)" -lt "\$end" ]; do
	i=\$((i + 1))
	echo "demo marker #\$i" >/dev/ftring/marker
	ftring_workload >/dev/null 2>&1
	ls -R /lib/modules >/dev/null 2>&1
	sleep 0.05
done
WORKLOAD
recorderd record -s kmod -e sched -e irq -e ftring -o /tmp/kmod.dat -- sh /tmp/workload.sh \
	>/out/record.txt 2>&1
rc=$?
cp /tmp/kmod.dat /out/kmod.dat 2>/dev/null
exit $rc
