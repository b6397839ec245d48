#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 010-kmod-abi.sh: load/unload, the device nodes, the mmap ABI
# kselftest and the ioctl fuzzer, with the kernel log checked after each step.
. /vm/guest/lib.sh
g_dmesg_mark

if ! insmod /vm/ftring.ko; then
	g_fail insmod "insmod /vm/ftring.ko failed: $(dmesg | tail -n 5)"
	exit 0
fi
g_ok insmod
g_dmesg_clean insmod.dmesg

# Device nodes: character devices, root only (0600).
devs="ctl marker watch"
for c in $(g_cpus); do devs="$devs cpu$c"; done
for d in $devs; do
	p=/dev/ftring/$d
	if [ ! -c "$p" ]; then
		g_fail "dev.$d" "$p is not a character device"
	else
		g_eq "dev.$d" "$(stat -c '%a %u %g' "$p")" "600 0 0"
	fi
done

g_kselftest map ftring_map_test
g_dmesg_clean map.dmesg

g_kselftest watch ftring_watch_test
g_dmesg_clean watch.dmesg

# A recording whose reader went away is an orphan (its recorder died) that a new
# recorder may take over; one started by hand that nobody has mapped yet is just busy,
# and so is one that is mapped.
flags() { ftring_ctl show | sed -n 's/.*flags=\(0x[0-9a-f]*\|0\).*/\1/p'; }
hold_map() {
	rm -f /tmp/orphan-held
	ftring_ctl hold-map /tmp/orphan-held >/dev/null 2>&1 &
	hm=$!
	for _ in $(seq 50); do [ -s /tmp/orphan-held ] && break; sleep 0.1; done
}
ftring_ctl stop 2>/dev/null
ftring_ctl config 64 discard >/dev/null
hold_map	# a reader before this recording: not this recording's
kill $hm; wait $hm 2>/dev/null
ftring_ctl start
g_eq orphan.never-mapped-is-not "$(( $(flags) & 4 ))" 0
hold_map
g_eq orphan.mapped-is-not "$(( $(flags) & 4 ))" 0
kill -9 $hm; wait $hm 2>/dev/null
g_eq orphan.reader-gone "$(( $(flags) & 4 ))" 4
ftring_ctl stop
g_eq orphan.stopped-is-not "$(( $(flags) & 4 ))" 0

g_kselftest fuzz ftring_fuzz -n 100000 -d 15 -s "${1:-1}"
g_dmesg_clean fuzz.dmesg

g_check rmmod rmmod ftring
g_check rmmod.devices-gone test ! -e /dev/ftring/ctl
# A second load/unload cycle (leaks or stale state would show here).
g_check reload sh -c 'insmod /vm/ftring.ko && test -c /dev/ftring/ctl && rmmod ftring'
g_check reload.not-loaded sh -c '! grep -q "^ftring " /proc/modules'
g_dmesg_clean unload.dmesg

# Access (last: lockdown cannot be lifted in this boot). The control and buffer devices
# need CAP_SYS_ADMIN, and are refused once the kernel is locked down to
# confidentiality, as tracefs is; a file opened before keeps working.
if insmod /vm/ftring.ko; then
	g_eq access.root-ctl "$(ftring_ctl try-open /dev/ftring/ctl)" ok
	g_eq access.nocap-ctl "$(ftring_ctl try-open /dev/ftring/ctl nocap)" \
		"Operation not permitted"
	g_eq access.nocap-cpu0 "$(ftring_ctl try-open /dev/ftring/cpu0 nocap)" \
		"Operation not permitted"
	g_eq access.nocap-watch "$(ftring_ctl try-open /dev/ftring/watch nocap)" \
		"Operation not permitted"
	mount -t securityfs none /sys/kernel/security 2>/dev/null
	if [ -w /sys/kernel/security/lockdown ]; then
		ftring_ctl start
		rm -f /tmp/held
		ftring_ctl hold-ctl /tmp/held >/tmp/held.out 2>&1 &
		hp=$!
		for _ in $(seq 50); do [ -s /tmp/held ] && break; sleep 0.1; done
		echo confidentiality >/sys/kernel/security/lockdown
		g_check access.locked-down grep -q '\[confidentiality\]' /sys/kernel/security/lockdown
		g_eq access.lockdown-ctl "$(ftring_ctl try-open /dev/ftring/ctl)" \
			"Operation not permitted"
		g_eq access.lockdown-cpu0 "$(ftring_ctl try-open /dev/ftring/cpu0)" \
			"Operation not permitted"
		g_eq access.lockdown-watch "$(ftring_ctl try-open /dev/ftring/watch)" \
			"Operation not permitted"
		kill -USR1 "$hp"
		wait "$hp"
		g_eq access.lockdown-held-ctl-works "$?" 0
		cat /tmp/held.out
		g_dmesg_clean access.dmesg
	else
		g_skip access.lockdown "no /sys/kernel/security/lockdown in this kernel"
	fi
else
	g_fail access.insmod "insmod failed: $(dmesg | tail -n 3)"
fi
