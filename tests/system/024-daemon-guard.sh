#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# recorderd start cannot be knocked over (host tracefs, an instance of its own, a
# private socket): a second start on the same socket, even while the first has not
# answered yet, exits with "already running (pid N)" and touches nothing; files are
# 0640 and directories 0750 whatever the umask; a reload naming an event that does not
# exist fails, names the event, and the capture goes on with the old configuration;
# each rotated file carries the event formats of its own start.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 024

conf=$TMP/recorderd.conf
cat >"$conf" <<EOF
events = sched:sched_switch
period_ms = 50
sync_ms = 200
EOF
out=$(umask 000; recd_start -c "$conf" 2>&1); rc=$?
t_eq "start (umask 000): exit 0" "$rc" 0
pid=$(recd_pid)
t_check "start: a pid" test -n "$pid"

# --- one instance -----------------------------------------------------------------------
other=$TMP/other-out
out=$("$RECORDERD" start --socket "$SOCK" -i "${INST}x" -d "$other" -c "$conf" 2>&1); rc=$?
t_eq "second start: exit 1" "$rc" 1
t_eq "second start: names the running one" "$out" \
	"recorderd: already running (pid $pid, socket $SOCK)"
t_check "second start: made no output directory" test ! -e "$other"
t_check "second start: made no tracefs instance" test ! -e "$TRACEFS/instances/${INST}x"
t_eq "second start: the first still runs" "$(recd_json state)" running
# The lock holds even when the socket does not answer (a stopped daemon, a stale
# socket): the first daemon is frozen, the second must still refuse.
kill -STOP "$pid"
out=$(timeout 20 "$RECORDERD" start --socket "$SOCK" -i "${INST}x" -d "$other" -c "$conf" 2>&1)
rc=$?
kill -CONT "$pid"
t_eq "start beside a frozen daemon: exit 1" "$rc" 1
t_check "start beside a frozen daemon: says already running" \
	grep -q "^recorderd: already running (pid $pid," <<<"$out"
t_check "start beside a frozen daemon: touched nothing" test ! -e "$other"
# Thawed, the loop first does the work it owes (a sync and its fdatasync): a status
# asked meanwhile can be the sentinel's "stalled". Running again within 3 s.
for ((i = 0; i < 30; i++)); do
	st=$(recd_json state)
	[ "$st" = running ] && break
	sleep 0.1
done
t_eq "the frozen daemon runs on" "$st" running

# --- every file carries the metadata of its own start ----------------------------------------
# An event created while the daemon runs (a uprobe on /usr/bin/true) is in the formats
# of the file started after it, not in the one before.
grp=recd024_$$
entry=$(readelf -h /usr/bin/true 2>/dev/null | awk '/Entry/{print $4}')
if [ -n "$entry" ] && echo "p:$grp/up1 /usr/bin/true:$entry" >>"$TRACEFS/uprobe_events" 2>/dev/null; then
	EXTRA_CLEANUP="echo '-:$grp/up1' >>$TRACEFS/uprobe_events 2>/dev/null"
	first=$(recd_json output_file)
	recd rotate >/dev/null
	second=$(recd_json output_file)
	recd rotate >/dev/null
	t_check "rotation: a new file" test "$second" != "$first"
	# (dump prints the formats, whose names are the events': up1)
	t_eq "file started before the event: no format for it" \
		"$(trace-cmd dump --events "$first" 2>/dev/null | grep -c '^name: up1$')" 0
	t_eq "file started after the event: its format is there" \
		"$(trace-cmd dump --events "$second" 2>/dev/null | grep -c '^name: up1$')" 1
	echo "-:$grp/up1" >>"$TRACEFS/uprobe_events"
	EXTRA_CLEANUP=
else
	t_skip "fresh metadata" "cannot create a uprobe event here"
fi

# --- private files ------------------------------------------------------------------------
f=$(recd_json output_file)
t_eq "output file mode (umask 000)" "$(stat -c %a "$f")" 640
t_eq "output directory mode (umask 000)" "$(stat -c %a "$OUT")" 750

# --- a reload that cannot capture keeps the old capture -------------------------------------
mark before 1 500
sleep 0.5
printf 'events = sched:sched_switch nosuch:event\nperiod_ms = 50\nsync_ms = 200\n' >"$conf"
out=$(recd reload 2>&1); rc=$?
t_check "bad-event reload: exit non-zero ($rc)" test "$rc" -ne 0
t_check "bad-event reload: names the event" grep -q "nosuch" <<<"$out"
t_check "bad-event reload: says the old configuration is kept" \
	grep -q "old configuration kept" <<<"$out"
t_eq "bad-event reload: still running" "$(recd_json state)" running
t_eq "bad-event reload: same daemon" "$(recd_pid)" "$pid"
mark after 1 500
sleep 0.5
out=$(recd stop 2>&1)
t_check "stop after the bad reload" grep -q "stopped\|finished\|files" <<<"$out"
all=$(for g in "$OUT"/*.dat; do markers "$g" before; done | sort -n | uniq | wc -l)
t_eq "markers before the reload: all 500 in the files" "$all" 500
all=$(for g in "$OUT"/*.dat; do markers "$g" after; done | sort -n | uniq | wc -l)
t_eq "markers after the failed reload: captured (500)" "$all" 500

# --- recorderd record: the same modes -------------------------------------------------------
(umask 000; "$RECORDERD" record -q -s splice -B "${INST}r" -o "$TMP/rec.dat" -- true) \
	>/dev/null 2>&1
t_eq "record (umask 000): file mode" "$(stat -c %a "$TMP/rec.dat" 2>/dev/null)" 640
t_done
