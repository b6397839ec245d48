# SPDX-License-Identifier: GPL-2.0
# Guest half of 065-daemon-triggers.sh (2 vCPUs): `recorderd start -s kmod --mode
# flight` with triggers, each fired by a real cause: a matching marker, a task killed by SIGSEGV,
# `recorderd trigger`, a task stuck in D state on a frozen ext4 (/dev/vda, from the
# host) with a 1 s hung-task timeout, and a shell that outgrows a 16 MiB memory cgroup;
# then storms of 100 triggers against the cooldown and the file cap.
# For each KIND: markers "pre-KIND 1..200" before the cause and "post-KIND 1..20" in
# the window after it (on /dev/ftring/marker), then the trigger file is copied to
# $VM_OUT/trig-KIND.dat for the host to read with trace-cmd.
. /vm/guest/lib.sh
g_dmesg_mark
O=$VM_OUT
S=/tmp/t.sock

if ! insmod /vm/ftring.ko; then
	g_fail insmod "insmod /vm/ftring.ko failed: $(dmesg | tail -n 5)"
	exit 0
fi
# The detector's reports are the cause here, not a complaint: traced, not printed.
echo 0 >/proc/sys/kernel/hung_task_warnings

mkdir -p /tmp/t
recorderd start -f --socket $S -d /tmp/t -s kmod --mode flight -b 256 -e marker \
	-T signal:SIGSEGV,SIGABRT -T command:snap -T hung-task -T oom \
	-T 'marker:^app:fatal_[a-z]+_error$' \
	-O trigger_post_ms=1500 -O trigger_cooldown_ms=0 >"$O/daemon.log" 2>&1 &
DPID=$!
i=0
while [ $i -lt 300 ] && ! recorderd status --socket $S >/dev/null 2>&1; do
	sleep 0.1; i=$((i + 1))
done
if ! recorderd status --socket $S >/dev/null 2>&1; then
	g_fail start "recorderd start failed: $(tail -n 3 "$O/daemon.log")"
	exit 0
fi
g_ok start

marks() {	# TAG N
	j=1
	while [ $j -le "$2" ]; do echo "$1 $j"; j=$((j + 1)); done >/dev/ftring/marker
}
# field SPEC COLUMN: a trigger's line of `status` (spec fired joined suppressed file)
field() {
	recorderd status --socket $S | awk -v s="$1" -v c="$2" '$1 == s { print $c }'
}
# fires KIND SPEC CAUSE...
fires() {
	_k=$1 _s=$2
	shift 2
	_n0=$(field "$_s" 2)
	marks "pre-$_k" 200
	"$@" >/dev/null 2>&1
	_i=0
	while [ $_i -lt 300 ] && [ "$(field "$_s" 2)" = "$_n0" ]; do sleep 0.1; _i=$((_i + 1)); done
	g_check "$_k.fired" test "$(field "$_s" 2)" != "$_n0"
	marks "post-$_k" 20
	_i=0
	while [ $_i -lt 300 ]; do
		_f=$(field "$_s" 5)
		[ -n "$_f" ] && [ "$_f" != - ] && [ -s "$_f" ] && break
		sleep 0.1; _i=$((_i + 1))
	done
	g_check "$_k.file" test -s "$_f"
	cp "$_f" "$O/trig-$_k.dat"
	echo "$_f" >"$O/trig-$_k.name"
}

# A marker on /dev/ftring/marker, through the module's marker watch: one holding the
# watch's literal ("app:fatal_") but not matching the expression fires nothing. The
# expression ends at the end of the text, which echo's newline does not belong to (as
# on tracefs).
M='marker:^app:fatal_[a-z]+_error$'
echo "app:fatal_42_error" >/dev/ftring/marker
sleep 1
g_eq marker.near-miss-not-fired "$(field "$M" 2)" 0
# The watch queues 64 hits: 100 more near misses while the daemon is stopped overflow
# it by 36, which status counts once the daemon reads again, with no later hit.
kill -STOP $DPID
i=1
while [ $i -le 100 ]; do echo "app:fatal_$i"; i=$((i + 1)); done >/dev/ftring/marker
kill -CONT $DPID
sleep 1
recorderd status --socket $S >"$O/status-missed.txt" 2>&1
g_eq marker.missed-in-status \
	"$(awk '/markers not looked at/ { print $3 }' "$O/status-missed.txt")" 36
g_eq marker.near-misses-not-fired "$(field "$M" 2)" 0
fatal() { echo "app:fatal_disk_error" >/dev/ftring/marker; }
fires marker "$M" fatal

segv() { sh -c 'kill -SEGV $$'; }
fires signal signal:SIGSEGV,SIGABRT segv
fires command command:snap recorderd trigger snap --socket $S

if [ -b /dev/vda ] && mkdir -p /mnt && mount -t ext4 /dev/vda /mnt; then
	hung() {
		echo 1 >/proc/sys/kernel/hung_task_timeout_secs
		fsfreeze --freeze /mnt
		(echo stuck >/mnt/f) &
		WPID=$!
	}
	fires hung-task hung-task hung
	fsfreeze --unfreeze /mnt
	wait $WPID
	umount /mnt
	sleep 2		# a second report while it was stuck: let its window end
else
	g_skip hung-task "no /dev/vda with ext4"
fi
g_dmesg_clean before-oom.dmesg

# OOM in a 16 MiB memory cgroup: a shell doubling a string
mkdir -p /sys/fs/cgroup
if mount -t cgroup2 none /sys/fs/cgroup && echo +memory >/sys/fs/cgroup/cgroup.subtree_control &&
	mkdir /sys/fs/cgroup/hog && echo 16M >/sys/fs/cgroup/hog/memory.max; then
	hog() {
		sh -c 'echo $$ >/sys/fs/cgroup/hog/cgroup.procs; a=x; while :; do a=$a$a; done'
	}
	fires oom oom hog
else
	g_skip oom "no memory cgroup"
fi
recorderd status --socket $S >"$O/status.txt" 2>&1
recorderd stop --socket $S --timeout 60 >/dev/null 2>&1
wait $DPID
g_eq daemon-exit "$?" 0

# storm: 100 triggers; with a cooldown they make one file, without one the file cap
# keeps the newest trigger_max_files
storm() {	# NAME ARGS...: a daemon on /tmp/NAME, 100 `trigger snap`, then stop
	_n=$1
	shift
	mkdir -p "/tmp/$_n"
	recorderd start -f --socket "/tmp/$_n.sock" -d "/tmp/$_n" -s kmod --mode flight -b 64 \
		-e marker -T command:snap "$@" >"$O/$_n.log" 2>&1 &
	_p=$!
	_i=0
	while [ $_i -lt 300 ] && ! recorderd status --socket "/tmp/$_n.sock" >/dev/null 2>&1; do
		sleep 0.1; _i=$((_i + 1))
	done
	_i=0
	while [ $_i -lt 100 ]; do
		recorderd trigger snap --socket "/tmp/$_n.sock" >/dev/null 2>&1
		_i=$((_i + 1))
	done
	sleep 1
	recorderd status --socket "/tmp/$_n.sock" >"$O/$_n-status.txt" 2>&1
	recorderd stop --socket "/tmp/$_n.sock" --timeout 60 >/dev/null 2>&1
	wait $_p
}
storm cool -O trigger_cooldown_ms=600000 -O trigger_post_ms=300
g_eq storm.cooldown-one-file "$(ls /tmp/cool/trig-*.dat 2>/dev/null | wc -l)" 1
g_eq storm.all-counted "$(awk '$1 == "command:snap" { print $2 + $3 + $4 }' "$O/cool-status.txt")" 100
storm cap -O trigger_cooldown_ms=0 -O trigger_post_ms=0 -O trigger_max_files=3
g_eq storm.cap-fired "$(awk '$1 == "command:snap" { print $2 }' "$O/cap-status.txt")" 100
g_eq storm.cap-kept "$(ls /tmp/cap/trig-*.dat 2>/dev/null | wc -l)" 3
