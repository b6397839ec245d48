#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# No loss across a daemon crash (host tracefs, an instance of its own): the daemon is
# killed -9 in the middle of a marker stream, markers go on being written while no
# daemon runs, and a new `recorderd start` on the same socket and instance recovers the
# file its predecessor left and takes the instance over, so what the kernel still
# held and what was traced in between lands in the new file. Uncompressed (pages go
# straight to the file: a killed daemon holds none in memory), every marker must be in
# exactly one file, in order; compressed, every marker older than one sync interval
# at the kill and every later one. The instance is gone after a clean stop.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 025

# one round: COMP TAG -> checks
round() {
	local comp=$1 tag=$2 pid files f got n
	rm -rf "$OUT"
	recd_start -s splice -C "$comp" -O sync_ms=200 -O period_ms=100 \
		-O log_file="$TMP/$comp.log" >/dev/null 2>&1 ||
		{ t_fail "$comp: start" "recorderd start failed"; return; }
	writer "$tag" 1 3000 3000 >/dev/null
	sleep 0.5
	pid=$(recd_pid)
	kill -9 "$pid"
	for ((i = 0; i < 100; i++)); do gone "$pid" && break; sleep 0.05; done
	# no daemon: the instance keeps tracing into its buffer
	writer "$tag" 3001 4000 0 >/dev/null
	recd_start -s splice -C "$comp" -O sync_ms=200 -O period_ms=100 \
		-O log_file="$TMP/$comp.log" >"$TMP/start.log" 2>&1 ||
		{ t_fail "$comp: restart" "$(cat "$TMP/start.log")"; return; }
	writer "$tag" 4001 5000 0 >/dev/null
	sleep 0.5
	recd stop --timeout 30 >/dev/null 2>&1
	for ((i = 0; i < 100; i++)); do [ -z "$(recd_pid)" ] && break; sleep 0.05; done
	files=$(ls "$OUT"/*.dat 2>/dev/null | sort)
	t_eq "$comp: two files, the predecessor's and the new one" "$(wc -w <<<"$files")" 2
	for f in $files; do
		report_ok "$f" || t_fail "$comp: $(basename "$f") reads" "trace-cmd report complains"
	done
	got=$(for f in $files; do markers "$f" "$tag"; done)
	n=$(grep -c . <<<"$got")
	echo "# $comp: $n of 5000 markers over the two files"
	if [ "$comp" = none ]; then
		t_check "$comp: markers 1..5000, each once, in order" is_seq 5000 <<<"$got"
	else
		# a killed daemon loses the partial chunk it held: at most one sync interval
		t_eq "$comp: every marker after the kill, each once" \
			"$(awk '$1 > 3000' <<<"$got" | sort -n | uniq | wc -l)/$(awk '$1 > 3000' <<<"$got" | wc -l)" \
			"2000/2000"
		t_eq "$comp: no marker twice" "$(sort -n <<<"$got" | uniq -d | wc -l)" 0
	fi
	t_check "$comp: the restart said it took over" grep -q "taking over" "$TMP/$comp.log" "$TMP/start.log"
	t_check "$comp: the predecessor's file was recovered" grep -q "died writing" "$TMP/$comp.log" "$TMP/start.log"
	t_check "$comp: the instance is gone after stop" test ! -d "$TRACEFS/instances/$INST"
}

round none tn
round zstd tz
t_done
