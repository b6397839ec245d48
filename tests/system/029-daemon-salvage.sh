#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# No daemon comes back after a crash (host tracefs, an instance of its own): the daemon
# is killed -9 in the middle of a marker stream, markers go on being written while no
# daemon runs, and `recorderd salvage` with the daemon's configuration finishes what it
# left: exit 0, the dead daemon's file recovered, a new file holding what was traced
# since (uncompressed, so every marker is in exactly one of the two files, in order),
# the instance gone and the lock file naming no capture, so that a second salvage has
# nothing to do. Salvage beside a live daemon exits 0 and leaves its capture alone. In
# flight mode the dead daemon's ring goes to a file and its instance goes too; a
# restarted flight recorder takes that ring over instead, so its next snapshot holds
# what was traced before the crash. Faults: a take-over that fails on a full disk (a
# tiny tmpfs) leaves the instance tracing and named in the lock file, and a flight ring
# whose save fails stays in its instance (also one with room for the file's header but
# not for the ring, which is then not read); an instance left under another name than the
# configured one is taken over; a salvage with nothing to take deletes no file; its
# messages and journal priorities, and a second salvage beside a running one.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 029

salvage() {
	"$RECORDERD" salvage --socket "$SOCK" -i "$INST" -d "$OUT" "$@"
}

kill_daemon() {
	local pid
	pid=$(recd_pid)
	[ -n "$pid" ] || return 1
	kill -9 "$pid"
	for ((i = 0; i < 100; i++)); do gone "$pid" && return 0; sleep 0.05; done
	return 1
}

# A daemon started with ARGS writes markers TAG 1..N, then (its file synced) is killed -9
# in a fresh output directory: crash WHAT TAG N ARGS...
crash() {
	local what=$1 tag=$2 n=$3

	shift 3
	rm -rf "$OUT"
	recd_start "$@" >/dev/null 2>&1 || { t_fail "$what: start" "recorderd start failed"; t_done; }
	mark "$tag" 1 "$n"
	sleep 0.5
	kill_daemon || t_fail "$what: kill -9" "the daemon did not die"
}

# The lock file's lines: the pid alone means "no capture" (daemon.c read_previous).
lock_lines() {
	grep -c . "$SOCK.lock" 2>/dev/null
}

# --- stream mode ---------------------------------------------------------------------
args=(-s splice -C none -O sync_ms=200 -O period_ms=100)
recd_start "${args[@]}" -O log_file="$TMP/daemon.log" >/dev/null 2>&1 ||
	{ t_fail "stream: start" "recorderd start failed"; t_done; }
writer s 1 2000 4000 >/dev/null &
wpid=$!
sleep 0.3
kill_daemon || t_fail "stream: kill -9" "the daemon did not die"
wait "$wpid"
# no daemon: the instance keeps tracing into its buffer
writer s 2001 3000 0 >/dev/null
dead=$(ls "$OUT"/*.dat 2>/dev/null)
"$RECORDERD" recover --check "$dead" >/dev/null 2>&1
echo "# recover --check of the dead daemon's file before salvage: exit $? (1: cut, repairable)"
salvage "${args[@]}" >"$TMP/salvage.out" 2>&1
rc=$?
sed 's/^/# salvage: /' "$TMP/salvage.out"
t_eq "stream: salvage exits 0" "$rc" 0
t_check "stream: salvage recovered the dead daemon's file" \
	grep -qE "died writing .*: (recovered|valid as it was)" "$TMP/salvage.out"
"$RECORDERD" recover --check "$dead" >/dev/null 2>&1
t_eq "stream: after salvage the dead daemon's file is valid (recover --check) and reads" \
	"$rc/$?/$(report_ok "$dead" && echo reads)" "0/0/reads"
files=$(ls "$OUT"/*.dat 2>/dev/null | sort)
new=$(grep -vxF "$dead" <<<"$files")
t_eq "stream: salvage wrote one new file" "$(grep -c . <<<"$new")" 1
got_new=$(markers "$new" s)
t_eq "stream: the new file holds markers 2001..3000 (written with no daemon)" \
	"$(awk '$1 > 2000' <<<"$got_new" | tr '\n' ' ' | md5sum)" "$(seq 2001 3000 | tr '\n' ' ' | md5sum)"
got=$(for f in $files; do markers "$f" s; done)
echo "# stream: $(grep -c . <<<"$got") of 3000 markers over the two files"
t_check "stream: markers 1..3000 over both files, each once, in order" is_seq 3000 <<<"$got"
t_check "stream: the instance is gone (nothing left tracing)" test ! -d "$TRACEFS/instances/$INST"
t_eq "stream: the lock file names no capture" "$(lock_lines)" 1

salvage "${args[@]}" >"$TMP/again.out" 2>&1
rc=$?
t_eq "stream: a second salvage has nothing to salvage, exits 0, writes no file" \
	"$rc $(grep -c "nothing to salvage" "$TMP/again.out") $(ls "$OUT"/*.dat | sort | md5sum)" \
	"0 1 $(md5sum <<<"$files")"

# --- a live daemon is left alone -----------------------------------------------------
rm -rf "$OUT"
recd_start "${args[@]}" >/dev/null 2>&1 || t_fail "live: start" "recorderd start failed"
mark live 1 100
pid=$(recd_pid)
cur=$(recd_json output_file)
salvage "${args[@]}" >"$TMP/live.out" 2>&1
rc=$?
sed 's/^/# salvage: /' "$TMP/live.out"
mark live 101 200
after="$(recd_pid)|$(recd_json state)|$(recd_json output_file)|$(cat "$TRACEFS/instances/$INST/tracing_on")"
recd stop --timeout 30 >/dev/null 2>&1
t_eq "live: salvage exits 0 saying the daemon runs; its capture goes on untouched, every marker in its file" \
	"$rc|$(grep -c "is running (pid $pid): nothing to salvage" "$TMP/live.out")|$after|$(markers "$cur" live | tr '\n' ' ' | md5sum)" \
	"0|1|$pid|running|$cur|1|$(seq 1 200 | tr '\n' ' ' | md5sum)"

# --- flight mode: the ring goes to a file ----------------------------------------------
fargs=(-s splice -m flight -b 4096)
crash "flight" f 500 "${fargs[@]}"
mark f 501 1000
salvage "${fargs[@]}" >"$TMP/flight.out" 2>&1
rc=$?
sed 's/^/# salvage: /' "$TMP/flight.out"
t_eq "flight: salvage exits 0, the lock file names no capture" "$rc $(lock_lines)" "0 1"
files=$(ls "$OUT"/*.dat 2>/dev/null)
t_eq "flight: one file, holding markers 1..1000, before and after the crash" \
	"$(grep -c . <<<"$files") $(markers "$files" f | tr '\n' ' ' | md5sum)" \
	"1 $(seq 1 1000 | tr '\n' ' ' | md5sum)"
t_check "flight: salvage says where the ring went" \
	grep -qF "is in ${files:-no file}, now stopped" "$TMP/flight.out"
t_check "flight: the instance is gone (nothing left tracing)" test ! -d "$TRACEFS/instances/$INST"

# --- a restart that fails at start-up leaves what the dead daemon left named -----------
# (under systemd, failed restarts are what makes it give up and run salvage)
crash "failed restart" r 500 "${args[@]}"
mark r 501 1000
recd_start "${args[@]}" -O pidfile="$TMP/no/such/dir/recd.pid" >"$TMP/fail.out" 2>&1
rc=$?
sed 's/^/# restart: /' "$TMP/fail.out"
salvage "${args[@]}" >"$TMP/after-fail.out" 2>&1
rc2=$?
sed 's/^/# salvage: /' "$TMP/after-fail.out"
files=$(ls "$OUT"/*.dat 2>/dev/null | sort)
got=$(for f in $files; do markers "$f" r; done)
t_eq "failed restart: the restart fails; salvage then still finds the instance, takes it over (markers 1..1000 over the files, in order) and removes it" \
	"$((rc != 0)) $rc2 $(grep -c "now stopped" "$TMP/after-fail.out") $(is_seq 1000 <<<"$got" && echo in-order) $(test -d "$TRACEFS/instances/$INST" && echo left)" \
	"1 0 1 in-order "

# --- flight mode: a restart takes the ring over as salvage does ------------------------
crash "flight restart" fr 500 "${fargs[@]}"
mark fr 501 1000
recd_start "${fargs[@]}" >"$TMP/restart.out" 2>&1 ||
	{ t_fail "flight restart: restart" "$(cat "$TMP/restart.out")"; t_done; }
mark fr 1001 1500
recd snapshot -o "$TMP/snap.dat" >/dev/null 2>&1
recd stop --timeout 30 >/dev/null 2>&1
t_eq "flight restart: the snapshot holds markers 1..1500, before and after the crash; the instance is gone after stop" \
	"$(markers "$TMP/snap.dat" fr | tr '\n' ' ' | md5sum) $(test -d "$TRACEFS/instances/$INST" && echo left)" \
	"$(seq 1 1500 | tr '\n' ' ' | md5sum) "

# --- a take-over that fails before it is live leaves what it took as it was -----------
# (a full disk: the new file's headers do not fit; restart and salvage alike)
full=$TMP/full
mkdir -p "$full"
if mount -t tmpfs -o size=64k recd029 "$full" 2>/dev/null; then
	EXTRA_CLEANUP="umount $full 2>/dev/null"
	crash "failed take-over" ft 500 "${args[@]}"
	mark ft 501 800
	"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$full" "${args[@]}" \
		>"$TMP/ft-restart.out" 2>&1
	rc=$?
	sed 's/^/# restart: /' "$TMP/ft-restart.out"
	left="$(cat "$TRACEFS/instances/$INST/tracing_on" 2>/dev/null)|$(grep -c "^instance $INST\$" "$SOCK.lock")"
	mark ft 801 900
	salvage "${args[@]}" -d "$full" >"$TMP/ft-salvage.out" 2>&1
	rc2=$?
	sed 's/^/# salvage: /' "$TMP/ft-salvage.out"
	left2="$(cat "$TRACEFS/instances/$INST/tracing_on" 2>/dev/null)|$(grep -c "^instance $INST\$" "$SOCK.lock")"
	mark ft 901 1000
	t_eq "failed take-over: a restart and a salvage that fail on a full disk exit 1 and leave the instance tracing, named in the lock file" \
		"$rc $left $rc2 $left2" "1 1|1 1 1|1"
	salvage "${args[@]}" >"$TMP/ft-after.out" 2>&1
	rc=$?
	files=$(ls "$OUT"/*.dat 2>/dev/null | sort)
	got=$(for f in $files; do markers "$f" ft; done)
	t_eq "failed take-over: a salvage with room then has markers 1..1000 over the files, in order" \
		"$rc $(is_seq 1000 <<<"$got" && echo in-order)" "0 in-order"
	umount "$full"
	EXTRA_CLEANUP=
else
	t_skip "failed take-over" "cannot mount a tmpfs"
fi

# --- the dead daemon's instance under another name than the configured one ------------
# (the configuration changed since it started): salvage takes it over all the same; a
# restart saves what it holds into a file and removes it before its own capture starts
other=${INST}_b
EXTRA_CLEANUP="rmdir $TRACEFS/instances/$other 2>/dev/null"
for how in salvage restart; do
	crash "renamed ($how)" rn 500 "${args[@]}"
	mark rn 501 1000
	if [ $how = salvage ]; then
		salvage "${args[@]}" -i "$other" >"$TMP/rn.out" 2>&1
		rc=$?
	else
		recd_start "${args[@]}" -i "$other" >"$TMP/rn.out" 2>&1
		rc=$?
		recd stop --timeout 30 >/dev/null 2>&1
	fi
	sed "s/^/# $how: /" "$TMP/rn.out"
	files=$(ls "$OUT"/*.dat 2>/dev/null | sort)
	got=$(for f in $files; do markers "$f" rn; done)
	t_eq "renamed ($how): exits 0, markers 1..1000 over the files in order, the dead daemon's instance gone" \
		"$rc $(is_seq 1000 <<<"$got" && echo in-order) $(test -d "$TRACEFS/instances/$INST" && echo left)" \
		"0 in-order "
	rmdir "$TRACEFS/instances/$INST" 2>/dev/null
done
EXTRA_CLEANUP=

# --- flight mode: a final save that fails leaves the ring where it is -----------------
mkdir -p "$full"
if mount -t tmpfs -o size=64k recd029 "$full" 2>/dev/null; then
	EXTRA_CLEANUP="umount $full 2>/dev/null"
	crash "flight, save fails" fs 500 "${fargs[@]}"
	mark fs 501 1000
	salvage "${fargs[@]}" -d "$full" >"$TMP/fs.out" 2>&1
	rc=$?
	sed 's/^/# salvage: /' "$TMP/fs.out"
	t_eq "flight, save fails: salvage exits 1, says where the ring is, the instance stays with it, named in the lock file" \
		"$rc $(grep -c "kept in tracefs instance $INST" "$TMP/fs.out") $(test -d "$TRACEFS/instances/$INST" && echo kept) $(grep -c "^instance $INST\$" "$SOCK.lock")" \
		"1 1 kept 1"
	t_eq "flight, save fails: salvage does not say nothing was tracing; the lock file's pid line says salvage wrote it" \
		"$(grep -c "nothing of it was tracing" "$TMP/fs.out") $(grep -c "left only in part" "$TMP/fs.out") $(head -1 "$SOCK.lock" | grep -c ' salvage$')" \
		"0 1 1"
	salvage "${fargs[@]}" >"$TMP/fs2.out" 2>&1
	rc=$?
	files=$(ls "$OUT"/*.dat 2>/dev/null)
	t_eq "flight, save fails: a salvage with room then writes markers 1..1000 and removes the instance" \
		"$rc $(grep -c . <<<"$files") $(markers "$files" fs | tr '\n' ' ' | md5sum) $(test -d "$TRACEFS/instances/$INST" && echo left)" \
		"0 1 $(seq 1 1000 | tr '\n' ' ' | md5sum) "
	umount "$full"
	EXTRA_CLEANUP=
else
	t_skip "flight, save fails" "cannot mount a tmpfs"
fi

# --- flight mode: a final save with room for the file's header but not for the ring:
# the ring is not read (a snapshot that failed after reading it would lose what it
# read with the daemon), so a salvage with room still finds every marker
rm -rf "$OUT"
recd_start "${fargs[@]}" >/dev/null 2>&1 || { t_fail "flight, no room: start" "recorderd start failed"; t_done; }
recd snapshot -o "$TMP/empty.dat" >/dev/null 2>&1
head_bytes=$(stat -c %s "$TMP/empty.dat" 2>/dev/null || echo 0)
recd stop --timeout 30 >/dev/null 2>&1
rm -rf "$OUT" "$TMP/empty.dat"
mkdir -p "$full"
if [ "$head_bytes" -gt 0 ] &&
	mount -t tmpfs -o size=$(((head_bytes + (128 << 10)) / 4096 * 4096)) recd029 "$full" 2>/dev/null; then
	EXTRA_CLEANUP="umount $full 2>/dev/null"
	crash "flight, no room for the ring" fm 0 "${fargs[@]}"
	# 10000 markers of 64 random hex digits: ~400 KiB compressed, more than the room
	i=0
	head -c 320000 /dev/urandom | od -An -v -tx1 -w32 | tr -d ' ' |
		while read -r pad; do i=$((i + 1)); echo "fm $i $pad"; done \
		>"$TRACEFS/instances/$INST/trace_marker"
	salvage "${fargs[@]}" -d "$full" >"$TMP/fm.out" 2>&1
	rc=$?
	sed 's/^/# salvage: /' "$TMP/fm.out"
	t_eq "flight, no room for the ring: salvage exits 1, says so, the instance stays" \
		"$rc $(grep -c "a full ring may need" "$TMP/fm.out") $(test -d "$TRACEFS/instances/$INST" && echo kept)" \
		"1 1 kept"
	salvage "${fargs[@]}" >"$TMP/fm2.out" 2>&1
	rc=$?
	files=$(ls "$OUT"/*.dat 2>/dev/null)
	t_eq "flight, no room for the ring: a salvage with room then writes markers 1..10000" \
		"$rc $(grep -c . <<<"$files") $(markers "$files" fm | tr '\n' ' ' | md5sum)" \
		"0 1 $(seq 1 10000 | tr '\n' ' ' | md5sum)"
	umount "$full"
	EXTRA_CLEANUP=
else
	t_skip "flight, no room for the ring" "cannot mount a tmpfs (or no empty snapshot: $head_bytes bytes)"
fi

# --- nothing left tracing: salvage deletes no file (max_age, disk budget) -------------
crash "nothing to take" nt 100 "${args[@]}"
for ((i = 0; i < 20; i++)); do rmdir "$TRACEFS/instances/$INST" 2>/dev/null && break; sleep 0.1; done
old=$OUT/trace-20000101-000000-0000.dat
head -c 100000 /dev/urandom >"$old"
touch -d '2 days ago' "$old"
# stderr as systemd's journal stream (JOURNAL_STREAM names its device and inode)
: >"$TMP/nt.err"
JOURNAL_STREAM=$(stat -c %d:%i "$TMP/nt.err") salvage "${args[@]}" -O max_age=1h \
	>"$TMP/nt.out" 2>"$TMP/nt.err"
rc=$?
sed 's/^/# salvage: /' "$TMP/nt.out" "$TMP/nt.err"
t_eq "nothing to take: salvage exits 0 and deletes no file (an old one past max_age stays)" \
	"$rc $(test -f "$old" && echo kept)" "0 kept"
t_eq "journal: salvage's log lines carry their priority when stderr is the journal, as start's do" \
	"$(grep -c '^<4>the previous recorderd' "$TMP/nt.err") $(grep -c '^recorderd: warning:' "$TMP/nt.err")" "1 0"

# --- a salvage running: a second one says so, not that a daemon runs -------------------
# (the first is held with SIGSTOP once its pid line is in the lock file)
crash "another salvage" as 100 "${args[@]}"
"$RECORDERD" salvage --socket "$SOCK" -i "$INST" -d "$OUT" "${args[@]}" >"$TMP/one.out" 2>&1 &
spid=$!
for ((i = 0; i < 500; i++)); do
	grep -q "^$spid salvage\$" "$SOCK.lock" 2>/dev/null && kill -STOP "$spid" 2>/dev/null && break
	sleep 0.01
done
salvage "${args[@]}" >"$TMP/two.out" 2>&1
rc=$?
kill -CONT "$spid" 2>/dev/null
wait "$spid"
rc1=$?
sed 's/^/# salvage: /' "$TMP/two.out"
t_eq "another salvage: a second salvage exits 0 saying another one (its pid) is running; the first then finishes" \
	"$rc $(grep -c "another salvage is running (pid $spid)" "$TMP/two.out") $rc1" "0 1 0"

t_done
