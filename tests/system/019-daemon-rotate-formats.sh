#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A rotation (and a flight snapshot, which is one) reads tracefs' event formats again
# only when a module or a dynamic event came or went since the previous file's: only
# those add or change a format (meta_collect_since). Reading them all is two thirds of
# the metadata's time (2 300 files on this host; a snapshot took 1.1 s in a TCG guest).
# Under strace, a daemon rotates three times:
#  1. nothing changed: no format file is read, the file's formats are the first one's;
#  2. a uprobe event was added (uprobe_events): the formats are read again and the new
#     file holds the new event's;
#  3. it was removed again: read again, and the file no longer holds it.
# Every file still reads back with all its markers.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 019
command -v strace >/dev/null || { t_skip rotate-formats "no strace"; t_done; }
[ -w "$TRACEFS/uprobe_events" ] || { t_skip rotate-formats "no uprobe_events"; t_done; }
UP=ftr019_$$
EXTRA_CLEANUP="echo '-:$UP' >>'$TRACEFS/uprobe_events' 2>/dev/null"

strace -f -o "$TMP/st" -e trace=openat \
	"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$OUT" --foreground \
	-O rotate_size=0 >"$TMP/d.log" 2>&1 &
spid=$!
for ((i = 0; i < 100; i++)); do recd status >/dev/null 2>&1 && break; sleep 0.1; done
mark m 1 100
t_check "rotate, nothing changed" recd rotate
mark m 101 200
t_check "uprobe event added" sh -c "echo 'p:$UP /bin/true:0x1000' >>'$TRACEFS/uprobe_events'"
t_check "rotate, a uprobe event added" recd rotate
mark m 201 300
t_check "uprobe event removed" sh -c "echo '-:$UP' >>'$TRACEFS/uprobe_events'"
t_check "rotate, the uprobe event removed" recd rotate
mark m 301 400
sleep 0.5
recd stop >/dev/null
wait "$spid"

files=("$OUT"/*.dat)
t_eq "four files" "${#files[@]}" 4
# format files read by each metadata collection (each starts with events/header_event,
# which nothing else opens; the splice source opens header_page too): the first file's,
# then each rotation's
formats_read() {
	awk '/openat\(/ && /\/events\/header_event"/ { if (c++) print n + 0; n = 0; next }
		/openat\(/ && /\/events\/[^"]*\/format"/ { n++ }
		END { if (c) print n + 0 }' "$TMP/st"
}
read -r -d '' r0 r1 r2 r3 < <(formats_read | tr '\n' ' '; printf '\0')
echo "# format files read: first file ${r0:-?}, rotations ${r1:-?} ${r2:-?} ${r3:-?}"
t_check "the first file's formats read (${r0:-none})" test "${r0:-0}" -gt 100
t_eq "formats read by a rotation with nothing changed" "${r1:-?}" 0
t_check "formats read again once an event was added (${r2:-none})" test "${r2:-0}" -gt 100
t_check "formats read again once it was removed (${r3:-none})" test "${r3:-0}" -gt 100

for i in 0 1 2 3; do
	trace-cmd dump --events "${files[$i]}" >"$TMP/ev$i" 2>/dev/null
done
t_check "the copied formats are the first file's" cmp -s "$TMP/ev0" "$TMP/ev1"
t_check "file 1 has every system" grep -q "Events format, [0-9][0-9]* systems" "$TMP/ev1"
has_up() { grep -c "^name: $UP\$" "$TMP/ev$1"; }
t_eq "the uprobe event's format: not in file 2" "$(has_up 1)" 0
t_eq "the uprobe event's format: in file 3" "$(has_up 2)" 1
t_eq "the uprobe event's format: not in file 4" "$(has_up 3)" 0
all_markers m "${files[@]}" >"$TMP/got"
t_check "markers 1..400 over the files, each once, in order" \
	test "$(md5sum <"$TMP/got")" = "$(seq 1 400 | md5sum)"
t_done
