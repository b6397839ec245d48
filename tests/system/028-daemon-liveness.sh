#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The daemon stays alive and answers whatever its disk does (issue 12, liveness). Its
# output directory is an ext4 image on a loop device, frozen with fsfreeze while
# markers keep coming: the daemon's loop blocks in its write (state D). Meanwhile the
# control socket answers STATUS within 100 ms ("stalled", and where), the watchdog
# keeps pinging (a frozen disk is no reason for systemd to kill the writer), and a
# rotate asked meanwhile runs once the disk thaws. Afterwards no marker is missing.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup live
for t in fsfreeze mkfs.ext4 losetup; do
	command -v $t >/dev/null || { t_skip "liveness" "no $t"; t_done; }
done
MNT=$TMP/mnt
mkdir -p "$MNT"
truncate -s 256M "$TMP/disk.img"
if ! mkfs.ext4 -q -F "$TMP/disk.img" || ! mount -o loop "$TMP/disk.img" "$MNT"; then
	t_skip "liveness" "cannot mount a loop ext4 image here"
	t_done
fi
# Thaw first, whatever happens: a frozen file system blocks every writer to it.
EXTRA_CLEANUP='umount "$MNT" 2>/dev/null || umount -l "$MNT"'
trap 'fsfreeze -u "$MNT" 2>/dev/null; recd_cleanup' EXIT
EV=sched:sched_process_hang	# exists on every kernel here, never fires in a test
WD_US=1000000			# WatchdogSec=1 s: a ping every 500 ms

notify_listener "$TMP/notify.sock" "$TMP/notify.log" 60 &
lpid=$!
for ((i = 0; i < 50; i++)); do [ -S "$TMP/notify.sock" ] && break; sleep 0.05; done
NOTIFY_SOCKET=$TMP/notify.sock WATCHDOG_USEC=$WD_US \
	"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$MNT/out" -e "$EV" -b 8192 \
	2>"$TMP/journal.log" &
dpid=$!
for ((i = 0; i < 50; i++)); do grep -q READY=1 "$TMP/notify.log" 2>/dev/null && break; sleep 0.1; done
t_check "daemon ready" grep -q READY=1 "$TMP/notify.log"

mark a 1 1000
sleep 2
# the file being written, as a script asks for it (CI's 080 took the one of a daemon
# whose loop was on the disk right then: its sentinel answered, with no file)
file_now() { timeout 5 "$RECORDERD" status --socket "$SOCK" --json |
	sed -n 's/.*"output_file": *"\([^"]*\)".*/\1/p'; }
cur=$(file_now)
t_check "status names the file being written" test -n "$cur"
pings() { grep -c "^WATCHDOG=1$" "$TMP/notify.log"; }
state() { awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$dpid/stat" 2>/dev/null; }

fsfreeze -f "$MNT"
frozen_at=$(date +%s%N)
mark b 1 3000
for ((i = 0; i < 100; i++)); do [ "$(state)" = D ] && break; sleep 0.1; done
t_eq "frozen disk: the daemon's loop blocks in its write (state D)" "$(state)" D
p0=$(pings)

# timed on the socket itself, so that no client's start-up is counted
worst=0
for ((i = 0; i < 5; i++)); do
	raw=$(ctl_status_raw "$SOCK")
	ms=$(sed -n 's/^ms=\([0-9]*\) state=4 .*/\1/p' <<<"$raw")
	[ -n "$ms" ] || { echo "# status: $raw"; ms=9999; }
	[ "$ms" -gt $worst ] && worst=$ms
	sleep 0.2
done
out=$(timeout 5 "$RECORDERD" status --socket "$SOCK" 2>&1)
echo "# status while frozen: $out"
t_check "frozen disk: STATUS answered within 100 ms, state stalled (worst of 5: $worst ms)" \
	test "$worst" -le 100
t_check "frozen disk: status says stalled" grep -q "^recorderd: stalled (pid $dpid" <<<"$out"
t_check "frozen disk: status says the loop is blocked on I/O" grep -q "blocked on I/O" <<<"$out"
t_eq "frozen disk: status still names the file being written" "$(file_now)" "$cur"
t_check "frozen disk: status still says where it writes" grep -qF "  output:       $cur" <<<"$out"

# a command that changes something waits for the loop, and runs once it can
timeout 60 "$RECORDERD" rotate --socket "$SOCK" >"$TMP/rotate.out" 2>&1 &
rpid=$!
sleep 2
t_check "frozen disk: rotate waits for the loop" test -d "/proc/$rpid"
sleep 1
p1=$(pings)
echo "# $((p1 - p0)) watchdog pings in the last $(( ($(date +%s%N) - frozen_at) / 1000000 )) ms frozen"
t_check "frozen disk: the watchdog keeps pinging ($((p1 - p0)) pings while frozen)" \
	test $((p1 - p0)) -ge 4
t_check "frozen disk: still the same daemon" test -d "/proc/$dpid"
t_check "frozen disk: logged why the watchdog is kept alive" \
	grep -q "blocked on I/O.*the watchdog is kept alive" "$TMP/journal.log"

fsfreeze -u "$MNT"
wait "$rpid"
t_eq "thawed: the rotate asked while frozen ran (exit 0)" "$?" 0
for ((i = 0; i < 50; i++)); do [ "$(state)" != D ] && break; sleep 0.1; done
t0=$(date +%s%N)
out=$(timeout 5 "$RECORDERD" status --socket "$SOCK" 2>&1)
t_check "thawed: status from the loop again (running)" grep -q "^recorderd: running" <<<"$out"
mark c 1 500
sleep 2
kill -TERM "$dpid"
wait "$dpid"
t_eq "thawed: clean stop (exit 0)" "$?" 0
wait "$lpid"

files=$(ls "$MNT"/out/*.dat 2>/dev/null)
t_check "two files (the rotation)" test "$(echo "$files" | grep -c .)" -ge 2
for tag in a:1000 b:3000 c:500; do
	t_check "no marker lost or doubled: ${tag%:*} 1..${tag#*:}" is_seq "${tag#*:}" \
		< <(for f in $files; do markers "$f" "${tag%:*}"; done | sort -n)
done
t_done
