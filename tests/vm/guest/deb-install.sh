#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of 080-deb-install.sh, in the Debian 12 system of tests/vm/run --rootfs
# (no network): the packages in /vm/bin, handled as an administrator would.
#  1. apt-get install of both: DKMS builds ftring for the running kernel;
#  2. /etc/recorderd.conf is the package's conffile, then edited: source = kmod and
#     mode = flight;
#  3. systemctl enable --now recorderd: the unit is active, ftring loaded, status says
#     kmod; numbered markers written to /dev/ftring/marker, then a snapshot, copied to
#     $VM_OUT/snap.dat for the host's trace-cmd report (written count in
#     snap-written.txt);
#  4. systemctl stop: a clean exit and no error in the unit's journal;
#  5. apt-get remove of both: DKMS forgets the module.
# Logs and command outputs go to $VM_OUT/*.txt; failures quote them.
. /vm/guest/lib.sh
O=$VM_OUT
K=$(uname -r)
export DEBIAN_FRONTEND=noninteractive

# since_log: the journal since mark_journal (before each start we ask for); unit_log:
# the unit's part of it.
mark_journal() { CURSOR=$(journalctl -n 1 --show-cursor -q | sed -n 's/^-- cursor: //p'); }
since_log() { journalctl --no-pager -o short-monotonic --after-cursor="$CURSOR" "$@"; }
unit_log() { since_log -u recorderd "$@"; }
# last LINES FILE: the file's last lines on one line, for a failure message.
last() { tail -n "$1" "$2" | tr '\n' ' '; }
# reloaded ERE FILE: `systemctl reload` only sends SIGHUP (systemd 252 does not wait for
# the reload to end): waits for the daemon's reload handler to log (ERE in the unit's
# journal since mark_journal), then for its loop to answer again (the handler is done),
# with `recorderd status` in FILE; 120 s at most. A fixed 2 s was too short for a bad
# reload, which starts two captures: status was answered "stalled" by the sentinel,
# twice in CI.
reloaded() {
	_i=0
	while [ $_i -lt 240 ] && ! unit_log | grep -qE "$1"; do sleep 0.5; _i=$((_i + 1)); done
	recorderd status >"$2" 2>&1
	while [ $_i -lt 240 ] && ! grep -q '^recorderd: running' "$2"; do
		sleep 0.5; _i=$((_i + 1))
		recorderd status >"$2" 2>&1
	done
}

# --- 1. install, offline ------------------------------------------------------------
cd /vm/bin || exit 1
t0=$(date +%s)
if apt-get install -y ./recorderd_*.deb ./ftring-dkms_*.deb >"$O/apt-install.txt" 2>&1; then
	g_ok install
else
	g_fail install "apt-get install failed: $(last 8 "$O/apt-install.txt")"
fi
echo "guest: apt-get install (DKMS build included) took $(($(date +%s) - t0)) s"
cd /

dkms status >"$O/dkms-status.txt" 2>&1
if grep -q "^ftring/[^,]*, $K, [^:]*: installed" "$O/dkms-status.txt"; then
	g_ok dkms.installed
else
	g_fail dkms.installed "dkms status for $K: $(last 5 "$O/dkms-status.txt")"
fi
ko=$(modinfo -n ftring 2>&1)
case $ko in
/lib/modules/"$K"/updates/dkms/ftring.ko*) g_ok dkms.modinfo ;;
*) g_fail dkms.modinfo "modinfo -n ftring: '$ko', want /lib/modules/$K/updates/dkms/ftring.ko" ;;
esac

# --- 2. the configuration ------------------------------------------------------------
conf=/etc/recorderd.conf
sum=$(dpkg-query -W -f '${Conffiles}\n' recorderd 2>/dev/null | awk -v f=$conf '$1 == f { print $2 }')
if [ -z "$sum" ]; then
	g_fail conffile "$conf is not a conffile of recorderd: $(dpkg-query -W -f '${Conffiles}' recorderd 2>&1)"
elif [ "$(md5sum <$conf | cut -d' ' -f1)" != "$sum" ]; then
	g_fail conffile "$conf differs from the packaged one (md5 $sum)"
else
	g_ok conffile
fi
if grep -qE '^source *= *kmod' $conf && grep -qE '^mode *= *flight' $conf; then
	echo "guest: the packaged $conf already records the module in flight mode"
else
	# The user's edit: the module as the source, and a flight recorder to snapshot.
	sed -i -e 's/^source *=.*/source = kmod/' -e 's/^mode *=.*/mode = flight/' $conf
fi
if grep -qx 'source = kmod' $conf && grep -qx 'mode = flight' $conf; then
	g_ok config.edited
else
	g_fail config.edited "no 'source =' or 'mode =' line to edit in $conf"
fi

# --- 3. the service ------------------------------------------------------------------
mark_journal
if systemctl enable --now recorderd >"$O/enable.txt" 2>&1; then
	g_ok service.enable-now
else
	# systemd's own lines about the unit's devices carry no unit name: grep for them
	g_fail service.enable-now "$(last 3 "$O/enable.txt") journal: \
$(since_log | grep -E 'recorderd|/dev/ftring' | tail -n 8 | tr '\n' ' ')"
fi
if grep -q '^ftring ' /proc/modules; then
	g_ok service.module-loaded
else
	g_fail service.module-loaded "nothing loaded ftring: no modules-load.d entry \
($(grep -rls ftring /etc/modules-load.d /usr/lib/modules-load.d /lib/modules-load.d \
	/etc/modules 2>/dev/null || echo none)), no modprobe in the unit \
($(systemctl cat recorderd | grep -c modprobe) lines)"
fi
state=$(systemctl is-active recorderd)
g_eq service.active "$state" active
if [ "$state" != active ]; then
	# What an administrator would do next, so that the checks below still say whether
	# the service works on the module (the failures above stand).
	echo "guest: recorderd is $state: loading ftring and restarting it by hand"
	modprobe ftring
	systemctl reset-failed recorderd
	mark_journal
	systemctl restart recorderd >>"$O/enable.txt" 2>&1
	g_eq service.active-after-restart "$(systemctl is-active recorderd)" active
fi

recorderd status >"$O/status.txt" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^recorderd: running' "$O/status.txt" &&
   grep -qE '^ +source: +kmod' "$O/status.txt"; then
	g_ok status.kmod
else
	g_fail status.kmod "recorderd status (exit $rc): $(last 6 "$O/status.txt")"
fi

N=200
i=1
while [ $i -le $N ]; do
	echo "deb-install $i"
	i=$((i + 1))
done >/dev/ftring/marker 2>"$O/marker-write.txt"
echo $N >"$O/snap-written.txt"
if [ -s "$O/marker-write.txt" ]; then
	g_fail markers "writes to /dev/ftring/marker failed: $(last 1 "$O/marker-write.txt")"
else
	g_ok markers
fi
# The daemon writes the file, within what its unit lets it write (ProtectSystem=strict).
snap=/var/lib/recorderd/snap.dat
if recorderd snapshot -o $snap >"$O/snapshot.txt" 2>&1 && cp $snap "$O/snap.dat"; then
	g_ok snapshot
else
	g_fail snapshot "$(last 3 "$O/snapshot.txt")"
fi

# --- 4. stop --------------------------------------------------------------------------
if systemctl stop recorderd >"$O/stop.txt" 2>&1; then
	g_ok service.stop
else
	g_fail service.stop "$(last 3 "$O/stop.txt")"
fi
res=$(systemctl show -p Result -p ExecMainStatus -p ActiveState recorderd | sort | tr '\n' ' ')
g_eq service.stopped-clean "$res" "ActiveState=inactive ExecMainStatus=0 Result=success "
unit_log >"$O/unit-journal.txt"
errs=$(unit_log -p err -q)
if [ -z "$errs" ]; then g_ok service.journal-clean; else
	g_fail service.journal-clean "$(echo "$errs" | tail -n 4)"; fi

# --- 5. the daemon under systemd (issue 12), streaming --------------------------------
# READY=1 before `systemctl restart` returns; a good and a bad reload; the unit's
# sandbox; the journal's priorities; the watchdog restarting a frozen daemon, whose
# file is recovered by its successor with every marker it had synced; a timely stop.
sed -i 's/^mode *=.*/mode = stream/' $conf
mark_journal
systemctl restart recorderd >"$O/restart.txt" 2>&1
# Type=notify: restart returned after READY=1, so the capture is already live (the
# loop may be on the disk right then: the sentinel's "stalled" names the file too)
recorderd status >"$O/status-stream.txt" 2>&1
if grep -q '^recorderd: running' "$O/status-stream.txt" ||
   { grep -q '^recorderd: stalled' "$O/status-stream.txt" &&
     grep -q '^  output: */var/lib/recorderd/' "$O/status-stream.txt"; }; then
	g_ok sd.ready-means-running
else
	g_fail sd.ready-means-running "status right after restart: $(last 4 "$O/status-stream.txt")"
fi
pid=$(systemctl show -p MainPID --value recorderd)

# a good reload (one more event), then a bad one (an event that does not exist)
sed -i 's/^events *=.*/&, sched:sched_process_exec/' $conf
g_check sd.reload systemctl reload recorderd
reloaded 'configuration reloaded' "$O/status-reload.txt"
if grep -q 'sched_process_exec' "$O/status-reload.txt"; then g_ok sd.reload-applied; else
	g_fail sd.reload-applied "events after reload: $(grep events: "$O/status-reload.txt")"; fi
cp $conf /tmp/good.conf
sed -i 's/^events *=.*/events = nosuch:event/' $conf
systemctl reload recorderd
reloaded 'reload rejected|going on with the old one' "$O/status-bad-reload.txt"
g_eq sd.bad-reload-keeps-running "$(systemctl is-active recorderd) $(systemctl show -p MainPID --value recorderd)" "active $pid"
if grep -q 'sched_process_exec' "$O/status-bad-reload.txt"; then g_ok sd.bad-reload-old-capture; else
	g_fail sd.bad-reload-old-capture "$(grep events: "$O/status-bad-reload.txt")"; fi
cp /tmp/good.conf $conf
# priorities: the reload's refusal is an error (3), the start info (6)
unit_log -o json >"$O/journal-stream.json"
for p in 3 6; do
	if grep -q "\"PRIORITY\":\"$p\"" "$O/journal-stream.json"; then g_ok "sd.journal-priority-$p"
	else g_fail "sd.journal-priority-$p" "no PRIORITY $p entry of the unit"; fi
done
if unit_log -p err | grep -qE 'reload rejected|going on with the old one'; then
	g_ok sd.bad-reload-logged-as-error
else
	g_fail sd.bad-reload-logged-as-error "$(unit_log | tail -n 3 | tr '\n' ' ')"; fi

# the sandbox: the daemon's view of the file system (its mount namespace)
ns() { nsenter -t "$pid" -m sh -c "$1" 2>/dev/null; }
if ! ns 'touch /usr/lib/x' && ! ns 'touch /etc/x' && ns 'touch /var/lib/recorderd/.w && rm /var/lib/recorderd/.w' &&
   ns 'test -w /sys/kernel/tracing/trace_marker'; then
	g_ok sd.sandbox-writable-only-state-and-tracefs
else
	g_fail sd.sandbox-writable-only-state-and-tracefs "inside the unit: /usr or /etc writable, or /var/lib/recorderd or tracefs not"
fi
systemd-analyze security recorderd >"$O/security.txt" 2>&1
echo "guest: $(grep -i 'overall exposure' "$O/security.txt")"

# frozen PID: every thread of PID stopped. A thread that was in a reader-page swap when
# SIGSTOP came finishes it first, and the page it takes then is the frozen daemon's,
# written by nobody: markers written before that would be lost with it (CI: 38 of 50).
frozen() {
	_i=0
	while [ $_i -lt 100 ]; do
		_all=1
		for _s in /proc/"$1"/task/*/status; do
			grep -q '^State:[[:space:]]*T' "$_s" || _all=0
		done
		[ $_all = 1 ] && return 0
		sleep 0.05; _i=$((_i + 1))
	done
	return 1
}

# the watchdog: a frozen daemon is killed and restarted; its successor recovers its file
i=1
while [ $i -le 100 ]; do echo "pre-freeze $i"; i=$((i + 1)); done >/dev/ftring/marker
sleep 3		# sync_ms (1 s) and a wake-up: on disk
cur=$(recorderd status --json | sed -n 's/.*"output_file": *"\([^"]*\)".*/\1/p')
n0=$(systemctl show -p NRestarts --value recorderd)
kill -STOP "$pid"
frozen "$pid" || g_fail sd.frozen "a thread of $pid did not stop in 5 s"
# recorded by the module while no daemon reads: the successor takes them over
i=1
while [ $i -le 50 ]; do echo "during-freeze $i"; i=$((i + 1)); done >/dev/ftring/marker
t0=$(date +%s)
i=0
while [ $i -lt 90 ]; do
	n=$(systemctl show -p NRestarts --value recorderd)
	[ "$n" != "$n0" ] && [ "$(systemctl is-active recorderd)" = active ] && break
	sleep 1; i=$((i + 1))
done
echo "guest: watchdog restart after $(($(date +%s) - t0)) s"
g_eq sd.watchdog-restarted "$(systemctl show -p NRestarts --value recorderd)" "$((n0 + 1))"
if unit_log | grep -q 'died writing'; then g_ok sd.successor-recovers-file; else
	g_fail sd.successor-recovers-file "no 'died writing' in the unit's journal"; fi
if [ -n "$cur" ] && cp "$cur" "$O/crashed.dat"; then g_ok sd.crashed-file; else
	g_fail sd.crashed-file "no file of the frozen daemon ('$cur')"; fi
if unit_log | grep -q 'taking its rings over'; then g_ok sd.successor-takes-over-rings; else
	g_fail sd.successor-takes-over-rings "$(unit_log | grep -i 'kmod source' | tail -n 2 | tr '\n' ' ')"; fi
next=$(recorderd status --json | sed -n 's/.*"output_file": *"\([^"]*\)".*/\1/p')

t0=$(date +%s)
systemctl stop recorderd
dt=$(($(date +%s) - t0))
tmo=$(systemctl show -p TimeoutStopUSec --value recorderd)
echo "guest: stop took $dt s (TimeoutStopSec $tmo)"
g_eq sd.stop-clean "$(systemctl show -p Result --value recorderd)" success
if [ -n "$next" ] && cp "$next" "$O/successor.dat"; then g_ok sd.successor-file; else
	g_fail sd.successor-file "no file of the restarted daemon ('$next')"; fi
if [ $dt -lt 60 ]; then g_ok sd.stop-within-timeout; else g_fail sd.stop-within-timeout "$dt s"; fi

# --- 5b. no daemon comes back (issue 12): recorderd-salvage.service ------------------
# Restart=no in a drop-in: the daemon's death is final, as when systemd gives up
# (StartLimitBurst). Markers go to the rings while the daemon is frozen (not read),
# then kill -9 leaves the rings an orphan: the unit fails, OnFailure= starts
# recorderd-salvage, which recovers the dead daemon's file, writes the rings to a new
# file and stops the module; the lock file then names no capture.
ftring_recording() { /vm/bin/ftring_ctl stats | sed -n 's/^recording=\([0-9]*\).*/\1/p'; }
# salvaged: its run since mark_journal has ended
salvaged() {
	since_log -u recorderd-salvage | grep -qE 'salvaged what pid|cannot salvage' &&
		[ "$(systemctl is-active recorderd-salvage)" != activating ]
}
dropin=/run/systemd/system/recorderd.service.d
mkdir -p $dropin
printf '[Service]\nRestart=no\n' >$dropin/salvage-test.conf
systemctl daemon-reload
systemctl reset-failed recorderd
mark_journal
systemctl start recorderd
pid=$(systemctl show -p MainPID --value recorderd)
killed=$(recorderd status --json | sed -n 's/.*"output_file": *"\([^"]*\)".*/\1/p')
i=1
while [ $i -le 100 ]; do echo "pre-kill $i"; i=$((i + 1)); done >/dev/ftring/marker
sleep 3		# sync_ms (1 s) and a wake-up: on disk
kill -STOP "$pid"
frozen "$pid" || g_fail salvage.frozen "a thread of $pid did not stop in 5 s"
i=1
while [ $i -le 50 ]; do echo "no-daemon $i"; i=$((i + 1)); done >/dev/ftring/marker
kill -KILL "$pid"
i=0
while [ $i -lt 60 ] && ! salvaged; do sleep 1; i=$((i + 1)); done
echo "guest: salvage done $i s after the kill"
g_eq salvage.daemon-failed "$(systemctl is-active recorderd)" failed
g_eq salvage.ran-on-failure \
	"$(systemctl show -p Result -p ExecMainStatus recorderd-salvage | sort | tr '\n' ' ')" \
	"ExecMainStatus=0 Result=success "
since_log -u recorderd-salvage >"$O/salvage-journal.txt"
if grep -q 'died writing' "$O/salvage-journal.txt"; then g_ok salvage.recovers-file; else
	g_fail salvage.recovers-file "$(last 4 "$O/salvage-journal.txt")"; fi
if grep -q 'taking its rings over' "$O/salvage-journal.txt"; then g_ok salvage.takes-over-rings; else
	g_fail salvage.takes-over-rings "$(last 4 "$O/salvage-journal.txt")"; fi
g_eq salvage.module-stopped "$(ftring_recording)" 0
g_eq salvage.lock-names-no-capture "$(grep -c . /run/recorderd/ctl.sock.lock)" 1
salvaged=$(sed -n 's/.*what was left tracing is in \(.*\), now stopped$/\1/p' "$O/salvage-journal.txt")
if [ -n "$killed" ] && cp "$killed" "$O/killed.dat"; then g_ok salvage.killed-file; else
	g_fail salvage.killed-file "no file of the killed daemon ('$killed')"; fi
if [ -n "$salvaged" ] && cp "$salvaged" "$O/salvaged.dat"; then g_ok salvage.new-file; else
	g_fail salvage.new-file "salvage named no file: $(last 3 "$O/salvage-journal.txt")"; fi
recorderd salvage --config $conf >"$O/salvage-again.txt" 2>&1
g_eq salvage.again-nothing "$? $(grep -c 'nothing to salvage' "$O/salvage-again.txt")" "0 1"

rm -r $dropin
systemctl daemon-reload
systemctl reset-failed recorderd recorderd-salvage

# --- 6. removal ---------------------------------------------------------------------
if apt-get remove -y recorderd ftring-dkms >"$O/apt-remove.txt" 2>&1; then
	g_ok remove
else
	g_fail remove "apt-get remove failed: $(last 8 "$O/apt-remove.txt")"
fi
dkms status >"$O/dkms-status-removed.txt" 2>&1
if grep -q '^ftring' "$O/dkms-status-removed.txt" || [ -e /var/lib/dkms/ftring ]; then
	g_fail dkms.removed "dkms still has ftring: $(last 3 "$O/dkms-status-removed.txt")"
else
	g_ok dkms.removed
fi
if ko=$(modinfo -n ftring 2>/dev/null) && [ -e "$ko" ]; then
	g_fail dkms.module-file-removed "$ko is still there"
else
	g_ok dkms.module-file-removed
fi
