#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Faults under the daemon (host tracefs, own instance), each must lose nothing already
# written and say what happened:
#   - rotation by size and the disk budget while markers flood in: every file reads,
#     the markers over all files are 1..N exactly once, old files are deleted first;
#   - a full CPU region (-ENOSPC from the writer) rotates, several times over: the
#     batch the writer refused opens the next file, so over all files the markers are
#     1..N exactly once, in order (compressed/mmap and uncompressed/splice);
#   - disk full (a small tmpfs): the daemon exits 1 saying "disk full", and the file
#     holds markers 1..R without holes;
#   - output directory removed while recording: it is recreated, the removed file is
#     restored, and the markers over both files are 1..N exactly once.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 022

wait_gone() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do gone "$1" && return 0; sleep 0.1; done
	return 1
}

# --- rotation by size + disk budget -------------------------------------------------
# Uncompressed: each file starts with ~7 MB of metadata (kallsyms), then the pages.
recd_start -C none -O rotate_size=10M -O disk_budget=25M -O period_ms=50 -O sync_ms=200 \
	>/dev/null
N=120000
writer r 1 $N 30000 100 >/dev/null
sleep 1
st=$(recd status --json)
deleted=$(recd_json files_deleted)
recd stop >/dev/null
files=("$OUT"/*.dat)
t_check "rotation: several files (${#files[@]})" test "${#files[@]}" -ge 2
t_check "budget: old files deleted ($deleted)" test "$deleted" -ge 1
used=$(du -sk "$OUT" | cut -f1)
t_check "budget: directory within 25M + one file ($used KiB)" test "$used" -le $((36 * 1024))
seamless=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["seamless_rotate"])' "$st")
bad=0 gaps=0 maxgap=0 prev=""
for f in "${files[@]}"; do
	if ! report_to "$f" "$TMP/rep"; then bad=$((bad + 1)); continue; fi
	markers_in "$TMP/rep" r >"$TMP/got"
	a=$(head -n 1 "$TMP/got"); b=$(tail -n 1 "$TMP/got")
	[ -n "$a" ] || continue
	# inside a file: a..b, each once, in order
	if [ "$(md5sum <"$TMP/got")" != "$(seq "$a" "$b" | md5sum)" ]; then
		bad=$((bad + 1))
		echo "# $f: markers $a..$b not each once in order:" \
			"$(awk 'NR > 1 && $1 != p + 1 { printf "%d->%d ", p, $1 } { p = $1 }' "$TMP/got" | head -c 300)"
	fi
	if [ -n "$prev" ]; then
		g=$((a - prev - 1))
		[ "$g" -lt 0 ] && bad=$((bad + 1))	# overlap: a marker in two files
		[ "$g" -gt 0 ] && gaps=$((gaps + 1))
		[ "$g" -gt "$maxgap" ] && maxgap=$g
	fi
	prev=$b
done
t_eq "rotation: every file reads, markers in order, none twice" "$bad" 0
t_eq "rotation: the newest file ends with marker $N" "$prev" "$N"
# The capture core switches files under the running source (capture_rotate).
t_eq "rotation: status says seamless_rotate" "$seamless" True
t_eq "rotation: no marker lost between files ($gaps gaps, largest $maxgap)" "$gaps" 0

# --- a CPU region of the file is full: the writer says -ENOSPC, the daemon rotates ---
# 60000 markers of ~90 bytes: ~5 MB of pages through small regions (compressed, the
# writer admits a chunk by its worst size: 8-page chunks, 64 KiB regions). The last
# 20000 arrive in a burst just before stop, so the drain at stop may fill regions too.
region_full() {
	local name=$1; shift
	rm -rf "$OUT"
	# 8 MiB of kernel buffer: a busy CI box must not drop markers while files switch.
	recd_start "$@" -b 8192 -O rotate_size=0 -O period_ms=50 \
		-O log_file="$TMP/region.log" >/dev/null
	writer g 1 40000 40000 60 >/dev/null
	writer g 40001 60000 0 60 >/dev/null
	lost=$(recd status --json | "$PY" -c 'import json,sys; print(sum(c["lost"] + c["overrun"] for c in json.load(sys.stdin)["cpus"]))')
	recd stop >/dev/null
	echo "# region full, $name: kernel buffer lost $lost events"
	files=("$OUT"/*.dat)
	t_check "region full, $name: rotated (${#files[@]} files)" test "${#files[@]}" -ge 3
	t_check "region full, $name: logged" grep -q "region of .* is full" "$TMP/region.log"
	t_check "region full, $name: rotation logged" \
		grep -q "a CPU region of the file is full" "$TMP/region.log"
	t_check "region full, $name: nothing lost at stop" \
		not_grep "did not fit" "$TMP/region.log"
	all_markers g "${files[@]}" >"$TMP/got"
	t_eq "region full, $name: markers over ${#files[@]} files: 1..60000 each once, in order" \
		"$(md5sum <"$TMP/got")" "$(seq 1 60000 | md5sum)"
	echo "# region full, $name: 60000 markers written, $(grep -c . "$TMP/got") read over" \
		"${#files[@]} files; breaks:" \
		"$(awk 'NR > 1 && $1 != p + 1 { printf "%d->%d ", p, $1 } { p = $1 }' "$TMP/got" | head -c 300)"
	rm -f "$TMP/region.log"
}
not_grep() { ! grep -q "$@"; }
region_full "zstd" -C zstd -O chunk_pages=8 -O region_size=64K
region_full "uncompressed splice" -C none -O source=splice -O region_size=1M

# --- disk full ----------------------------------------------------------------------
full=$TMP/full
mkdir -p "$full"
if mount -t tmpfs -o size=12m recd022 "$full" 2>/dev/null; then
	EXTRA_CLEANUP="umount $full 2>/dev/null"
	"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$full" --foreground -C none \
		-O rotate_size=0 -O period_ms=50 -O sync_ms=100 2>"$TMP/full.log" &
	dpid=$!
	for ((i = 0; i < 50; i++)); do recd status >/dev/null 2>&1 && break; sleep 0.1; done
	writer d 1 200000 20000 200 >/dev/null 2>&1 &
	wpid=$!
	wait_gone "$dpid" 300
	wait "$dpid"; rc=$?
	pkill -P "$wpid" 2>/dev/null; kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
	t_eq "disk full: daemon exits 1" "$rc" 1
	t_check "disk full: says so" grep -q "disk full" "$TMP/full.log"
	f=$(ls "$full"/*.dat | head -n 1)
	if report_to "$f" "$TMP/rep"; then
		t_ok "disk full: file reads"
		r=$(markers_in "$TMP/rep" d | grep -c .)
		t_check "disk full: holds markers ($r)" test "$r" -gt 0
		t_check "disk full: markers 1..$r without holes" \
			test "$(markers_in "$TMP/rep" d | md5sum)" = "$(seq 1 "$r" | md5sum)"
		out=$("$RECORDERD" recover "$f" 2>&1)
		echo "# recover: $out"
		report_to "$f" "$TMP/rep"
		r2=$(markers_in "$TMP/rep" d | grep -c .)
		t_check "disk full: recover keeps or adds markers ($r -> $r2)" test "$r2" -ge "$r"
		t_check "disk full: after recover 1..$r2 without holes" \
			test "$(markers_in "$TMP/rep" d | md5sum)" = "$(seq 1 "$r2" | md5sum)"
	else
		t_fail "disk full: file reads" "$(head -c 300 "$TMP/rep.err")"
	fi
	umount "$full"
	EXTRA_CLEANUP=
else
	t_skip "disk full" "cannot mount a tmpfs here"
fi

# --- a full region on an almost full disk: a region, not the disk ---------------------
# Small regions fill long before the disk, even when less than DISK_FULL_MARGIN (4 MiB)
# is left: the daemon must go on in new files until the disk itself is full (it used
# to take a full region with little free space for a full disk and stop early).
if mount -t tmpfs -o size=10m recd022b "$full" 2>/dev/null; then
	EXTRA_CLEANUP="umount $full 2>/dev/null"
	"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$full" --foreground -C zstd \
		-O chunk_pages=8 -O region_size=256K -O rotate_size=0 -O period_ms=50 \
		-O sync_ms=100 2>"$TMP/near.log" &
	dpid=$!
	for ((i = 0; i < 50; i++)); do recd status >/dev/null 2>&1 && break; sleep 0.1; done
	writer n 1 400000 20000 200 >/dev/null 2>&1 &
	wpid=$!
	# The least free space while the daemon runs and after it: what it leaves at exit is
	# more when compression fell behind (a loaded machine), as its spool (O_TMPFILE in
	# the output directory) goes with it: 1068 KiB once in CI.
	free_kb=
	for ((i = 0; i < 300; i++)); do	# wait_gone's bound: 300 rounds of 0.1 s
		gone "$dpid" && break
		kb=$(df -k --output=avail "$full" | tail -n 1 | tr -d ' ')
		[ -n "$free_kb" ] && [ "$free_kb" -le "$kb" ] || free_kb=$kb
		sleep 0.1
	done
	wait "$dpid"; rc=$?
	pkill -P "$wpid" 2>/dev/null; kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
	exit_kb=$(df -k --output=avail "$full" | tail -n 1 | tr -d ' ')
	# its last writes may come after the last look
	[ -n "$free_kb" ] && [ "$free_kb" -le "$exit_kb" ] || free_kb=$exit_kb
	nfiles=$(ls "$full"/*.dat 2>/dev/null | wc -l)
	echo "# almost full disk: $nfiles files, $free_kb KiB left at least, $exit_kb at exit" \
		"(status $rc)"
	t_check "almost full disk: regions rotated" grep -q "a CPU region of the file is full" \
		"$TMP/near.log"
	t_check "almost full disk: ends on the disk, not a region" grep -q "disk full" "$TMP/near.log"
	t_check "almost full disk: the disk was used up ($free_kb KiB < 1024 left)" \
		test "${free_kb:-99999}" -lt 1024
	umount "$full"
	EXTRA_CLEANUP=
fi

# --- output directory removed ---------------------------------------------------------
rm -rf "$OUT"
recd_start -O period_ms=50 -O sync_ms=100 -O log_file="$TMP/rm.log" >/dev/null
pid=$(recd_pid)
writer o 1 3000 >/dev/null
sleep 0.5
rm -rf "$OUT"
sleep 2.5
t_eq "dir removed: daemon carries on" "$(recd_json state)" running
t_check "dir removed: logged" grep -q "was removed" "$TMP/rm.log"
t_check "dir removed: restore logged" grep -q "were restored" "$TMP/rm.log"
writer o 3001 6000 >/dev/null
sleep 0.5
recd stop >/dev/null
files=("$OUT"/*.dat)
t_eq "dir removed: directory recreated with both files" "${#files[@]}" 2
all_markers o "${files[@]}" >"$TMP/got"
t_check "dir removed: markers 1..6000 each once (removed file restored)" \
	test "$(md5sum <"$TMP/got")" = "$(seq 1 6000 | md5sum)"

t_done
