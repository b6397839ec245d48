#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A rotation reads the next file's metadata (/proc/kallsyms, and every event format of
# tracefs when they may have changed: 1.5 s in a 2-vCPU TCG guest, all of which the
# rings had to hold) and
# writes the next file's header on a thread of its own, while the page path goes on
# moving pages into the old file; then the old file is finished while the pages go
# to the new one: its last chunks are reaped between those pages, its tail, sync and
# compact copy (the whole file copied and synced) are done on that thread (issue:
# never the bottleneck). Under strace, a daemon whose event loop moves the pages
# (splice, 2 CPUs: no drain threads) rotates 3 times while markers come:
#  - the page path opens /proc/kallsyms once, for the first file; each rotation's
#    copy is read by another thread (before: all four on the page path);
#  - the page path creates the first file, another thread the next three, and the
#    compact copies of the three finished by rotations (.NAME.finishing);
#  - the last fdatasync of each of those three before its compact copy (its final
#    tail's) is another thread's;
#  - the page path moved pages while a rotation's metadata were being read;
#  - status counts the finished files' bytes as their size on disk (compact);
#  - over all files the markers are 1..N, each once, in order.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 018
command -v strace >/dev/null || { t_skip rotate "no strace"; t_done; }
if [ "$(nproc)" -ge 4 ]; then
	t_skip rotate "4 CPUs or more: drain threads move the pages"
	t_done
fi

strace -f -o "$TMP/st" -e trace=openat,splice,fdatasync,exit \
	"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$OUT" --foreground -C zstd \
	-O source=splice -O rotate_size=0 -O period_ms=50 -O sync_ms=200 \
	>"$TMP/d.log" 2>&1 &
spid=$!
for ((i = 0; i < 100; i++)); do recd status >/dev/null 2>&1 && break; sleep 0.1; done
N=40000
writer m 1 $N 8000 >/dev/null &
wpid=$!
for r in 1 2 3; do
	sleep 1
	t_check "rotate $r" recd rotate
done
wait "$wpid"
sleep 0.5
st=$(recd status --json)
recd stop >/dev/null
wait "$spid"

# the page path: the threads that called splice(), and the event loop (the first pid)
movers=$( (head -n 1 "$TMP/st"; grep -E '^[0-9]+ +splice\(' "$TMP/st") |
	awk '{ print $1 }' | sort -u | tr '\n' ' ')
kallsyms() { grep -E "^$1 +openat\\(AT_FDCWD, \"/proc/kallsyms\"" "$TMP/st" | wc -l; }
on_path=0
for tid in $movers; do on_path=$((on_path + $(kallsyms "$tid"))); done
all=$(kallsyms '[0-9]+')
t_eq "kallsyms read by the page path (threads: $movers)" "$on_path" 1
t_eq "kallsyms read by another thread, once a rotation" "$((all - on_path))" 3
created() { grep -E "^$1 +openat\(AT_FDCWD, \"$OUT/[^\"]*\.dat\", [^)]*O_CREAT" "$TMP/st" | wc -l; }
on_path=0
for tid in $movers; do on_path=$((on_path + $(created "$tid"))); done
t_eq "files created by the page path" "$on_path" 1
t_eq "files created by another thread" "$(( $(created '[0-9]+') - on_path))" 3
compacted() {
	grep -E "^$1 +openat\(AT_FDCWD, \"$OUT/\.[^\"]*\.finishing\", [^)]*O_CREAT" "$TMP/st" |
		wc -l
}
on_path=0
for tid in $movers; do on_path=$((on_path + $(compacted "$tid"))); done
t_eq "compact copies made by the page path (at stop: 1)" "$on_path" 1
t_eq "compact copies made by another thread" "$(( $(compacted '[0-9]+') - on_path))" 3
# per file a rotation finished: the thread of its last fdatasync before its copy
last_sync_by_mover=0
for f in $(ls "$OUT"/*.dat | head -n 3); do
	# "N:PID openat(..." and its fd, on that line or where strace resumes it
	read -r from fd < <(awk -v f="\"$f\"," '
		!at && $2 == "openat(AT_FDCWD," && $3 == f && /O_CREAT/ {
			at = NR; pid = $1
			if ($0 !~ /unfinished/) { print at, $NF; exit }
			next
		}
		at && $1 == pid && /openat resumed/ { print at, $NF; exit }' "$TMP/st")
	to=$(grep -nE "openat\(AT_FDCWD, \"$(dirname "$f")/\.$(basename "$f")\.finishing\"" \
		"$TMP/st" | head -n 1 | cut -d: -f1)
	tid=$(sed -n "${from:-1},${to:-1}p" "$TMP/st" | grep -E "^[0-9]+ +fdatasync\($fd[)<, ]" |
		tail -n 1 | awk '{ print $1 }')
	echo "# $(basename "$f"): fd $fd, last fdatasync by ${tid:-nobody}"
	if [ -z "$tid" ] || grep -qw "$tid" <<<"$movers"; then
		last_sync_by_mover=$((last_sync_by_mover + 1))
	fi
done
t_eq "files whose final sync was the page path's (or none)" "$last_sync_by_mover" 0
# lines of the first rotation's reader, from its header_event (read first; the formats
# are only read again when a module or dynamic event changed)
reader=$(grep -E '^[0-9]+ +openat\(AT_FDCWD, "/proc/kallsyms"' "$TMP/st" |
	awk '{ print $1 }' | grep -vxF -f <(tr ' ' '\n' <<<"$movers" | grep .) | head -n 1)
from=$(grep -nE "^$reader +openat\\(.*/events/header_event\"" "$TMP/st" | head -n 1 | cut -d: -f1)
# (to the next file's creation: /proc/kallsyms read through)
to=$(awk -v from="${from:-0}" 'NR > from && /openat\(AT_FDCWD, "[^"]*\.dat", [^)]*O_CREAT/ {
	print NR; exit }' "$TMP/st")
moved=0
if [ -n "$from" ] && [ -n "$to" ]; then
	moved=$(sed -n "${from},${to}p" "$TMP/st" | grep -cE '^[0-9]+ +splice\(')
fi
t_check "pages moved while the metadata were read ($moved splice calls)" test "$moved" -gt 0

files=("$OUT"/*.dat)
t_eq "four files" "${#files[@]}" 4
# what status counts for the finished files is their size on disk (the compact one)
done_bytes=$("$PY" -c 'import json, sys
s = json.loads(sys.argv[1]); print(s["file_bytes"] - s["current_file_bytes"])' "$st")
t_eq "status: bytes of the finished files" "$done_bytes" \
	"$(stat -c %s "${files[@]:0:3}" | awk '{ n += $1 } END { print n }')"
all_markers m "${files[@]}" >"$TMP/got"
t_check "markers 1..$N over the files, each once, in order" \
	test "$(md5sum <"$TMP/got")" = "$(seq 1 $N | md5sum)"
t_done
