#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Power cut for real: `recorderd start` (durability power, sync_ms 200) writes to ext4
# on a virtio disk in a 2-vCPU guest (tests/vm/guest/power-cut.sh) while markers are
# written in batches with pauses longer than sync_ms; the host SIGKILLs qemu at a random
# instant, so everything the guest had not written to the disk (its page cache) is
# lost. Then e2fsck replays and checks the file system, the file is copied out,
# and every batch that was complete at least sync_ms + a wake-up period + MARGIN_MS
# before the kill must be in it, whole, each marker on the CPU that wrote it, as
# trace-cmd report (libtracecmd) reads the file as the cut left it.
#   POWERCUT_RUNS   instants tried (default 20)
#   POWERCUT_DUR    durability under test (default power; `process` must fail this)
# A crash-left file is as long as its sparse CPU regions (1 GiB each): it is copied out
# sparse and removed once checked (kept when a check fails).
# qemu writes the disk image through the host's page cache (cache=writeback): a killed
# qemu loses nothing it had written, only what the guest had not yet written, which
# is the guest-side power cut this test is about.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

runs=${POWERCUT_RUNS:-20}
dur=${POWERCUT_DUR:-power}
sync_ms=200 period_ms=100 margin_ms=700
late=$((sync_ms + period_ms + margin_ms))

for t in mkfs.ext4 e2fsck debugfs trace-cmd qemu-system-x86_64; do
	command -v $t >/dev/null || { t_skip power-cut "no $t"; t_done; }
done
[ -x "$TOP/build/recorderd" ] || { t_fail power-cut "build/recorderd missing (make)"; t_done; }
vm_outdir power-cut
now_ms() { date +%s%3N; }
# copy_out IMG DEST: the trace file in /out of the checked image IMG, copied to DEST.
# A read-only loop mount lets cp skip the holes (SEEK_HOLE), about 10 ms; debugfs, where
# no loop device can be had, writes every zero of the 1 GiB regions (10 s a run).
copy_out() {
	local m=$d/mnt f rc
	mkdir -p "$m"
	if mount -o ro,noload,loop "$1" "$m" 2>/dev/null; then
		f=$(ls "$m/out" 2>/dev/null | grep -m 1 '\.dat$')
		[ -n "$f" ] && cp --sparse=always "$m/out/$f" "$2"
		rc=$?
		umount "$m" || { umount -l "$m"; rc=1; }
		return $rc
	fi
	echo "# no loop mount: debugfs copies the file out, holes as zeros"
	f=$(debugfs -R "ls -p /out" "$1" 2>/dev/null | awk -F/ '$6 ~ /\.dat$/ { print $6 }' | head -n 1)
	[ -n "$f" ] && debugfs -R "dump /out/$f $2" "$1" >/dev/null 2>&1
}

# killed between mount and umount: no mount left on a deleted image
trap '[ -z "${d:-}" ] || ! mountpoint -q "$d/mnt" || umount -l "$d/mnt"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
total_kept=0 total_expected=0 total_lost=0 wrong_cpu=0
for ((r = 1; r <= runs; r++)); do
	d=$VM_DIR/run$r img=$VM_DIR/run$r/disk.img
	mkdir -p "$d"
	truncate -s 256M "$img"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$img"
	# the batch after which the cut comes, and how long after it (ms)
	k=$((2 + RANDOM % 4)) extra=$((RANDOM % 700)) start_ms=$(now_ms)
	VM_QEMU_ARGS="-drive file=$img,if=virtio,format=raw,cache=writeback" \
		"$VM_RUN" -c 2 -t 180 -o "$d" "$TOP/tests/vm/guest/power-cut.sh" \
		"$sync_ms" "$dur" >"$d/run.log" 2>&1 &
	vm=$!
	declare -A seen=()
	kill_ms=
	deadline=$(( $(now_ms) + 150000 ))
	while [ "$(now_ms)" -lt $deadline ] && kill -0 $vm 2>/dev/null; do
		if [ -f "$d/progress" ]; then
			while read -r b; do
				[ -n "${seen[$b]:-}" ] || seen[$b]=$(now_ms)
			done <"$d/progress"
		fi
		if [ -n "${seen[$k]:-}" ]; then
			sleep "$(printf '0.%03d' $extra)"
			pkill -KILL -f -- "file=$img," && kill_ms=$(now_ms)
			break
		fi
		sleep 0.02
	done
	wait $vm 2>/dev/null
	if [ -z "$kill_ms" ]; then
		t_fail "run$r.cut" "the guest never completed batch $k: $(cat "$d/error" 2>/dev/null) (see $d)"
		rm -f "$img"
		continue
	fi
	e2fsck -fy "$img" >"$d/fsck.log" 2>&1
	rc=$?
	# 0: clean, 1: errors corrected (the journal replay counts as one)
	if [ $rc -gt 1 ]; then
		t_fail "run$r.fsck" "e2fsck exit $rc: $(tail -n 2 "$d/fsck.log")"
		continue	# the image is kept to look at
	fi
	if ! copy_out "$img" "$d/cut.dat"; then
		t_fail "run$r.file" "no trace file in /out of the disk"
		rm -f "$img"
		continue
	fi
	trace-cmd report "$d/cut.dat" >"$d/report.txt" 2>"$d/report.err"
	# "[CPU] ... tracing_mark_write: pc BATCH CPU N": BATCH CPU for each marker found
	awk '/tracing_mark_write: pc / { match($0, /\[[0-9]+\]/);
		c = substr($0, RSTART + 1, RLENGTH - 2) + 0;
		m = $0; sub(/.*tracing_mark_write: pc /, "", m); split(m, f, " ");
		print f[1], f[2], c }' "$d/report.txt" >"$d/found.txt"
	bad=$(awk '$2 != $3' "$d/found.txt" | wc -l)
	wrong_cpu=$((wrong_cpu + bad))
	expected=0 kept=0 lost=""
	for b in "${!seen[@]}"; do
		[ "$b" -gt 0 ] || continue
		[ $((kill_ms - seen[$b])) -ge $late ] || continue
		for c in 0 1; do
			expected=$((expected + 100))
			n=$(awk -v b="$b" -v c="$c" '$1 == b && $2 == c' "$d/found.txt" | wc -l)
			kept=$((kept + n))
			[ "$n" -eq 100 ] || lost+=" batch $b cpu $c: $n/100;"
		done
	done
	total_expected=$((total_expected + expected)) total_kept=$((total_kept + kept))
	echo "# run $r: capture live after $((seen[0] - start_ms)) ms, cut $extra ms after batch $k" \
		"($((${#seen[@]} - 1)) batches seen," \
		"fsck $rc): $kept of $expected markers due found, $(wc -l <"$d/found.txt") in all," \
		"$bad on a wrong CPU"
	if [ -z "$lost" ]; then
		t_ok "run$r: every batch older than ${late} ms is in the file"
		rm -f "$d/cut.dat"
	else
		total_lost=$((total_lost + expected - kept))
		t_fail "run$r: every batch older than ${late} ms is in the file" "$lost (see $d)"
		fallocate --dig-holes "$d/cut.dat" 2>/dev/null	# kept, sparse again
	fi
	unset seen
	rm -f "$img"
done
echo "# $runs cuts with durability $dur: $total_kept of $total_expected markers due found," \
	"$wrong_cpu on a wrong CPU"
t_eq "no marker on a wrong CPU" "$wrong_cpu" 0
t_done
