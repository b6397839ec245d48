#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Nothing lost silently, nothing twice: every CPU floods numbered markers into a small
# ring while recorderd records (so the kernel drops some); then for each page source
#   markers in the file + events the kernel reported lost == markers written,
# no marker appears twice, each CPU's markers are in order, and the losses show in the
# file as "[N EVENTS DROPPED]" summing to the same count.
source "$(dirname "$0")/../lib/tap.sh"

T=/sys/kernel/tracing
INST=rec_sys030_$$
LOADGEN=$TOP/build/bench/loadgen
tmp=$(mktemp -d)
cleanup() { [ -d "$T/instances/$INST" ] && rmdir "$T/instances/$INST"; rm -rf "$tmp"; }
trap cleanup EXIT

if [ ! -x "$RECORDERD" ] || [ ! -x "$LOADGEN" ]; then
	t_skip "accounting" "build first (make userspace)"; t_done
fi
if ! mkdir "$T/instances/$INST" 2>/dev/null; then
	t_skip "accounting" "tracefs is not writable here (needs root and $T)"; t_done
fi
rmdir "$T/instances/$INST"

for src in mmap splice; do
	for comp in zstd none; do
		name=$src/$comp
		out=$("$RECORDERD" record -s "$src" -C "$comp" -B "$INST" -b 128 -o "$tmp/a.dat" -- \
			"$LOADGEN" markers "$T/instances/$INST/trace_marker" 1 64 2>&1)
		t_eq "$name: record exits 0" "$?" 0
		ops=$(sed -n 's/^ops //p' <<<"$out")
		lost=$(sed -n 's/.*total pages .*lost \([0-9]*\)$/\1/p' <<<"$out")
		trace-cmd report -i "$tmp/a.dat" >"$tmp/rep.txt" 2>/dev/null
		grep -o 'bench marker cpu[0-9]* #[0-9]*' "$tmp/rep.txt" >"$tmp/m.txt"
		n=$(wc -l <"$tmp/m.txt")
		dropped=$(grep -o '\[[0-9]* EVENTS DROPPED\]' "$tmp/rep.txt" | tr -dc '0-9\n' |
			awk '{s += $1} END {print s + 0}')
		t_check "$name: markers written ($ops)" test "${ops:-0}" -gt 0
		t_eq "$name: in file ($n) + lost ($lost) == written" "$((n + ${lost:-0}))" "$ops"
		t_eq "$name: no marker twice" "$(sort "$tmp/m.txt" | uniq -d | wc -l)" 0
		t_eq "$name: losses marked in the file" "$dropped" "${lost:-x}"
		t_eq "$name: each CPU's markers in order" "$(awk '{c = $3; n = substr($4, 2) + 0;
			if (c in last && n <= last[c]) bad++; last[c] = n} END {print bad + 0}' "$tmp/m.txt")" 0
	done
done
t_done
