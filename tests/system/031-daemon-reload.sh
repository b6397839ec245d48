#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A reload that cannot apply changes nothing (host tracefs, an instance of its own, a
# private socket, settings from the configuration file only). Stream mode: a new
# output_dir that cannot be made is refused, status keeps naming the old directory
# and the next rotation works; a reload that changes a restart-only key (instance)
# and names an unknown event goes on in the old instance, and its limits (max_age)
# delete nothing; a new group needs a restart. Flight mode: a new output_dir that
# cannot be made is refused; a ring that cannot be saved under the old settings
# refuses the reload and records on (its events are in the next snapshot); a reload
# that applies saves the ring in the old directory first. No marker written around
# the reloads is lost.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 031
EXTRA_CLEANUP='rmdir "$TRACEFS/instances/${INST}y" 2>/dev/null'
conf=$TMP/recorderd.conf
bad=/dev/null/out	# under a file: cannot be made

daemon_conf() {
	printf 'instance = %s\noutput_dir = %s\nperiod_ms = 50\nsync_ms = 200\n' "$INST" "$OUT"
	printf '%s\n' "$@"
}

# --- stream mode ----------------------------------------------------------------------
daemon_conf "events = sched:sched_switch" >"$conf"
out=$("$RECORDERD" start --socket "$SOCK" -c "$conf" 2>&1); rc=$?
t_eq "stream: start" "$rc" 0
pid=$(recd_pid)
mark a 1 300
sleep 0.3
sed -i "s|^output_dir = .*|output_dir = $bad|" "$conf"
out=$(recd reload 2>&1); rc=$?
t_eq "bad output_dir: reload fails" "$rc" 1
t_check "bad output_dir: says the old configuration is kept" \
	grep -q "old configuration kept" <<<"$out"
t_eq "bad output_dir: status names the old directory" "$(recd_json output_dir)" "$OUT"
t_eq "bad output_dir: still running" "$(recd_json state)" running
daemon_conf "events = sched:sched_switch" >"$conf"
out=$(recd rotate 2>&1); rc=$?
t_eq "rotation after the refused reload: exit 0 ($out)" "$rc" 0
t_eq "rotation after the refused reload: same daemon, running" \
	"$(recd_pid) $(recd_json state)" "$pid running"
mark b 1 300
sleep 0.3
# instance needs a restart; the unknown event makes the new capture fail
daemon_conf "events = sched:sched_switch nosuch:event" |
	sed "s|^instance = .*|instance = ${INST}y|" >"$conf"
out=$(recd reload 2>&1); rc=$?
t_check "unknown event + new instance: reload fails ($rc)" test "$rc" -ne 0
t_check "unknown event + new instance: old configuration kept" \
	grep -q "old configuration kept" <<<"$out"
t_check "unknown event + new instance: no capture in the new instance" \
	test ! -e "$TRACEFS/instances/${INST}y"
t_eq "unknown event + new instance: same daemon, running" \
	"$(recd_pid) $(recd_json state)" "$pid running"
mark c 1 300
sleep 0.3
# nor does it apply its new limits: a max_age that would delete every older file
before=$(ls "$OUT"/*.dat)
sleep 1.1
daemon_conf "events = sched:sched_switch nosuch:event" "max_age = 1s" >"$conf"
out=$(recd reload 2>&1)
t_check "unknown event + max_age: old configuration kept" \
	grep -q "old configuration kept" <<<"$out"
# (the fallback capture is in a file of its own)
t_eq "unknown event + max_age: no file deleted" \
	"$(for f in $before; do [ -e "$f" ] || echo "$f"; done)" ""
daemon_conf "events = sched:sched_switch" >"$conf"
# the control socket keeps the group it was made with: a restart-only key too
if getent group daemon >/dev/null; then
	daemon_conf "events = sched:sched_switch" "group = daemon" >"$conf"
	out=$(recd reload 2>&1)
	t_check "a new group: needs a restart, says so" \
		grep -q "changing 'group' needs a restart (kept old)" <<<"$out"
	recd rotate >/dev/null
	t_eq "a new group: the next file keeps the old one" \
		"$(stat -c %g "$(recd_json output_file)")" 0
else
	t_skip "a new group" "no group daemon here"
fi
recd stop >/dev/null 2>&1
for tag in a b c; do
	t_eq "stream: markers $tag, all 300 once" \
		"$(all_markers "$tag" "$OUT"/*.dat | sort -n | uniq | is_seq 300 && echo ok)" ok
done

# --- flight mode --------------------------------------------------------------------------
rm -rf "$OUT"
daemon_conf "mode = flight" "buffer_kb = 1024" "events = sched:sched_switch" >"$conf"
out=$("$RECORDERD" start --socket "$SOCK" -c "$conf" 2>&1); rc=$?
t_eq "flight: start" "$rc" 0
pid=$(recd_pid)
mark f 1 300
# new events (a restart of the ring) and an output_dir that cannot be made
daemon_conf "mode = flight" "buffer_kb = 1024" "events = sched:sched_switch sched:sched_wakeup" |
	sed "s|^output_dir = .*|output_dir = $bad|" >"$conf"
out=$(recd reload 2>&1); rc=$?
t_eq "flight, bad output_dir: reload fails" "$rc" 1
t_check "flight, bad output_dir: says the old configuration is kept" \
	grep -q "old configuration kept" <<<"$out"
t_eq "flight, bad output_dir: status names the old directory" "$(recd_json output_dir)" "$OUT"
t_eq "flight, bad output_dir: the old events" "$(recd_json events)" sched:sched_switch
# only the directory changes
daemon_conf "mode = flight" "buffer_kb = 1024" "events = sched:sched_switch" |
	sed "s|^output_dir = .*|output_dir = $bad|" >"$conf"
out=$(recd reload 2>&1); rc=$?
t_eq "flight, only a bad output_dir: reload fails" "$rc" 1
t_eq "flight, only a bad output_dir: status names the old directory" \
	"$(recd_json output_dir)" "$OUT"
# The ring cannot be saved under the old settings (their directory is now a file): a
# restart would clear it, so the reload is refused.
mark f 301 400
rm -rf "$OUT" && touch "$OUT"
daemon_conf "mode = flight" "buffer_kb = 1024" "events = sched:sched_switch sched:sched_wakeup" |
	sed "s|^output_dir = .*|output_dir = $TMP/out2|" >"$conf"
out=$(recd reload 2>&1); rc=$?
t_eq "flight, ring unsaved: reload fails" "$rc" 1
t_check "flight, ring unsaved: says why" grep -q "ring cannot be saved" <<<"$out"
t_eq "flight, ring unsaved: the old events" "$(recd_json events)" sched:sched_switch
rm -f "$OUT"
mark f 401 500
out=$(recd snapshot -o "$TMP/snap.dat" 2>&1); rc=$?
t_eq "flight: snapshot after the refused reloads ($out)" "$rc" 0
t_eq "flight: the snapshot holds every marker, 1..500" \
	"$(all_markers f "$TMP/snap.dat" | is_seq 500 && echo ok)" ok
t_eq "flight: same daemon, running" "$(recd_pid) $(recd_json state)" "$pid running"
# a reload that applies: the ring goes to a file of the old directory, then restarts
mark g 1 100
daemon_conf "mode = flight" "buffer_kb = 1024" "events = sched:sched_switch sched:sched_wakeup" |
	sed "s|^output_dir = .*|output_dir = $TMP/out2|" >"$conf"
out=$(recd reload 2>&1); rc=$?
t_eq "flight, new events and directory: reload applies" "$rc" 0
t_check "flight, new events and directory: says the ring was saved" \
	grep -q "flight recorder saved to a file and restarted" <<<"$out"
t_eq "flight, new events and directory: status" "$(recd_json events) $(recd_json output_dir)" \
	"sched:sched_switch,sched:sched_wakeup $TMP/out2"
t_eq "flight: the ring before the reload is in the old directory" \
	"$(all_markers g "$OUT"/*.dat | is_seq 100 && echo ok)" ok
mark h 1 100
recd stop >/dev/null 2>&1
t_eq "flight: the ring after the reload is in the new directory" \
	"$(all_markers h "$TMP/out2"/*.dat | is_seq 100 && echo ok)" ok
t_done
