#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# recorderd record's failures: each prints a clear message, exits non-zero, loses
# nothing it already had (disk full: the file stays readable up to its last sync)
# and leaves tracefs as it found it. Plus: settings are applied and restored, and a
# missing tracefs mount is mounted again (libtracefs).
source "$(dirname "$0")/../lib/tap.sh"

T=/sys/kernel/tracing
INST=rec_sys020_$$
tmp=$(mktemp -d)
small=$tmp/small
cleanup() {
	mountpoint -q "$small" && umount "$small"
	[ -d "$T/instances/$INST" ] && rmdir "$T/instances/$INST"
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -x "$RECORDERD" ]; then
	t_skip "errors" "no $RECORDERD (build first)"; t_done
fi
if ! mkdir "$T/instances/$INST" 2>/dev/null; then
	t_skip "errors" "tracefs is not writable here (needs root and $T)"; t_done
fi
rmdir "$T/instances/$INST"

# Global state a failed run must not change.
state() {
	cat "$T/tracing_on" "$T/trace_clock" "$T/buffer_size_kb" "$T/events/sched/enable" \
		"$T/options/overwrite" "$T/buffer_percent" 2>&1
}
before=$(state)

# expect_fail NAME PATTERN ARGS...: fails, prints PATTERN, leaves no instance.
expect_fail() {
	local name=$1 pat=$2 out rc
	shift 2
	out=$("$RECORDERD" record "$@" 2>&1)
	rc=$?
	t_check "$name: exits non-zero" test "$rc" -ne 0
	if grep -q -- "$pat" <<<"$out"; then t_ok "$name: says '$pat'"; else
		t_fail "$name: says '$pat'" "got: $(tail -n 2 <<<"$out")"; fi
	t_check "$name: no instance left" test ! -d "$T/instances/$INST"
}

expect_fail "unknown system" "unknown event 'nosuchsys:foo'" \
	-B "$INST" -e sched -e nosuchsys:foo -o "$tmp/a.dat" -- true
t_check "unknown system: no output file left" test ! -e "$tmp/a.dat"
expect_fail "unknown event" "unknown event 'sched:no_such_event'" \
	-B "$INST" -e sched:no_such_event -o "$tmp/a.dat" -- true
if [ ! -e /dev/ftring/ctl ]; then
	expect_fail "kmod source without the module" \
		"page source 'kmod' cannot be used here: its device is missing" \
		-s kmod -B "$INST" -o "$tmp/a.dat" -- true
fi
expect_fail "bad event name" "bad event 'sched/\*'" -B "$INST" -e 'sched/*' -o "$tmp/a.dat" -- true
expect_fail "output dir missing" "cannot create output file $tmp/no/such/dir.dat" \
	-B "$INST" -e sched -o "$tmp/no/such/dir.dat" -- true
expect_fail "output is a directory" "cannot create output file $tmp" -B "$INST" -o "$tmp" -- true
expect_fail "unknown source" "unknown page source 'nosuch'" -B "$INST" -s nosuch -o "$tmp/a.dat" -- true
expect_fail "bad compression" "unknown compression 'lz4'" -C lz4 -o "$tmp/a.dat" -- true
t_eq "tracefs state unchanged by the failures" "$(state)" "$before"

# No permission: an unprivileged user gets told why.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	mkdir -m 1777 "$tmp/nb" && chmod 755 "$tmp"
	out=$(cd "$tmp/nb" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$RECORDERD" record -e sched -o "$tmp/nb/nobody.dat" -- true 2>&1)
	t_check "not root: exits non-zero" test $? -ne 0
	t_check "not root: says why" grep -q "no permission to change tracefs" <<<"$out"
else
	t_skip "not root" "needs root and setpriv"
fi

# Settings applied during the capture and restored after it, on an instance we own.
mkdir "$T/instances/$INST"
echo 100 >"$T/instances/$INST/buffer_size_kb"
echo local >"$T/instances/$INST/trace_clock"
echo 0 >"$T/instances/$INST/options/overwrite"
echo 50 >"$T/instances/$INST/buffer_percent"
echo 1 >"$T/instances/$INST/events/sched/sched_wakeup/enable"
inst_state() {
	local d=$T/instances/$INST
	cat "$d/buffer_size_kb" "$d/trace_clock" "$d/options/overwrite" "$d/tracing_on" \
		"$d/buffer_percent" \
		"$d/events/sched/sched_switch/enable" "$d/events/sched/sched_wakeup/enable"
}
ibefore=$(inst_state)
out=$("$RECORDERD" record -q -B "$INST" -b 256 -c global -e sched:sched_switch --watermark 20 \
	-o "$tmp/s.dat" -- bash -c "cat $T/instances/$INST/buffer_size_kb \
		$T/instances/$INST/buffer_percent; sleep 0.1" 2>&1)
t_eq "settings: record exits 0" "$?" 0
kb=$(grep -x '[0-9]*' <<<"$out" | head -n 1)
t_eq "settings: buffer_percent 20 while recording" "$(grep -x '[0-9]*' <<<"$out" | sed -n 2p)" 20
t_check "settings: buffer_size_kb 256 while recording (kernel rounds up: $kb)" \
	test "${kb:-0}" -ge 256 -a "${kb:-0}" -lt 300
t_check "settings: clock global in the file" \
	grep -q '\[global\]' <<<"$(trace-cmd dump --options -i "$tmp/s.dat" 2>&1)"
t_check "settings: sched_switch recorded" grep -q 'sched_switch:' \
	<<<"$(trace-cmd report -i "$tmp/s.dat" 2>/dev/null)"
t_eq "settings: instance we did not create is kept and restored" "$(inst_state)" "$ibefore"
rmdir "$T/instances/$INST"

# tracefs not mounted: libtracefs mounts it (private mount namespace).
if unshare -m true 2>/dev/null; then
	out=$(unshare -m bash -c "umount $T && ! test -e $T/trace_marker &&
		'$RECORDERD' record -q -B $INST -e sched -o $tmp/m.dat -- true" 2>&1)
	t_eq "tracefs unmounted: recorded anyway" "$?" 0
	[ -d "$T/instances/$INST" ] && rmdir "$T/instances/$INST"
else
	t_skip "tracefs unmounted" "no unshare -m here"
fi

# A task the command leaves behind holds the instance's trace_marker open (its
# children inherit the redirect) for 100 ms after the command exits: the instance is
# still removed (it was busy at once: rmdir's EBUSY, retried briefly).
out=$("$RECORDERD" record -q -B "$INST" -o "$tmp/busy.dat" -- \
	bash -c "(echo left; sleep 0.1) >$T/instances/$INST/trace_marker &" 2>&1)
t_eq "leftover writer: exits 0" "$?" 0
t_check "leftover writer: no instance left ($out)" test ! -d "$T/instances/$INST"
[ -d "$T/instances/$INST" ] && { sleep 0.2; rmdir "$T/instances/$INST"; }

# Disk full in the middle: clear error, the file holds the markers up to the last sync.
mkdir -p "$small"
if mount -t tmpfs -o size=1600k tmpfs "$small" 2>/dev/null; then
	out=$("$RECORDERD" record --sync-ms 50 -B "$INST" -e sched -o "$small/full.dat" -- \
		taskset -c 0 bash -c "for ((i = 1; i <= 400; i++)); do
			echo \"df \$i \$(head -c 1500 /dev/urandom | base64 -w0)\"
			sleep 0.002; done > $T/instances/$INST/trace_marker" 2>&1)
	t_check "disk full: exits non-zero" test $? -ne 0
	t_check "disk full: says so" grep -q "No space left on device" <<<"$out"
	t_check "disk full: says what the file holds" grep -q "up to the last sync" <<<"$out"
	rep=$(trace-cmd report -i "$small/full.dat" 2>"$tmp/full.err")
	t_eq "disk full: report exits 0" "$?" 0
	t_eq "disk full: report prints no warning" \
		"$(grep -ci 'error\|fail\|bad\|corrupt' "$tmp/full.err")" 0
	nums=$(grep -o 'tracing_mark_write: df [0-9]*' <<<"$rep" | awk '{print $3}')
	n=$(grep -c . <<<"$nums")
	t_check "disk full: file holds markers ($n)" test "$n" -gt 0
	t_eq "disk full: they are 1..$n, once each" "$(md5sum <<<"$nums")" "$(seq 1 "$n" | md5sum)"
	t_check "disk full: no instance left" test ! -d "$T/instances/$INST"
else
	t_skip "disk full" "cannot mount a small tmpfs here"
fi
t_eq "tracefs state unchanged at the end" "$(state)" "$before"
t_done
