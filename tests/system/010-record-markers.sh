#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# recorderd record on the host's tracefs, in an instance of its own: K markers written
# from two CPUs (and sched events) while recording must come out of `trace-cmd report`
# exactly once each, in order per CPU, with their text; for each page source (mmap,
# splice) and both compressions; and `trace-cmd dump` must walk the files.
source "$(dirname "$0")/../lib/tap.sh"

T=/sys/kernel/tracing
INST=rec_sys010_$$
K=${K:-3000}
tmp=$(mktemp -d)
cleanup() { [ -d "$T/instances/$INST" ] && rmdir "$T/instances/$INST"; rm -rf "$tmp"; }
trap cleanup EXIT

if [ ! -x "$RECORDERD" ]; then
	t_skip "record" "no $RECORDERD (build first)"; t_done
fi
if ! mkdir "$T/instances/$INST" 2>/dev/null; then
	t_skip "record" "tracefs is not writable here (needs root and $T)"; t_done
fi
rmdir "$T/instances/$INST"
ncpu=$(nproc)
cpus=(0); [ "$ncpu" -gt 1 ] && cpus=(0 1)

# Writes K markers "TAG-cCPU N" pinned to each CPU in cpus[], concurrently.
flood() {
	local tag=$1 c
	for c in "${cpus[@]}"; do
		taskset -c "$c" bash -c "for ((i = 1; i <= $K; i++)); do echo \"$tag-c$c \$i\"; done > $T/instances/$INST/trace_marker" &
	done
	wait
}

# Checks the markers of one report: each CPU's K markers, once each, in order.
check_markers() {
	local name=$1 tag=$2 rep=$3 c got
	for c in "${cpus[@]}"; do
		got=$(grep -o "tracing_mark_write: $tag-c$c [0-9]*" "$rep" | awk '{print $3}')
		t_eq "$name: CPU$c markers count" "$(grep -c . <<<"$got")" "$K"
		t_eq "$name: CPU$c markers in order, once" "$(md5sum <<<"$got")" \
			"$(seq 1 "$K" | md5sum)"
		# a marker is recorded on the CPU its writer ran on
		t_eq "$name: CPU$c markers on CPU$c" \
			"$(grep "tracing_mark_write: $tag-c$c " "$rep" | grep -vc "\[00$c\]")" "0"
	done
}

export -f flood
for src in mmap splice; do
	for comp in zstd none; do
		name="$src/$comp"
		f=$tmp/$src-$comp.dat
		tag="m$src$comp"
		out=$("$RECORDERD" record -s "$src" -C "$comp" -B "$INST" -e sched -o "$f" -- \
			bash -c "$(declare -f flood); T=$T INST=$INST K=$K cpus=(${cpus[*]}); flood $tag" 2>&1)
		rc=$?
		t_eq "$name: record exits 0" "$rc" 0
		[ $rc -eq 0 ] || echo "$out" | sed 's/^/# /'
		grep -q "lost 0  overrun 0" <<<"$out" || echo "$out" | sed 's/^/# /'
		t_check "$name: instance removed after recording" test ! -d "$T/instances/$INST"
		trace-cmd report -i "$f" >"$tmp/$src-$comp.report" 2>"$tmp/$src-$comp.err"
		t_eq "$name: report prints no warning" "$(grep -ci 'error\|fail\|bad\|corrupt' "$tmp/$src-$comp.err")" 0
		check_markers "$name" "$tag" "$tmp/$src-$comp.report"
		n=$(grep -c 'sched_switch:' "$tmp/$src-$comp.report")
		t_check "$name: sched_switch events recorded ($n)" test "$n" -gt 0
		# the same events, compressed or not: marker text in report order
		grep -o "tracing_mark_write: $tag-c[0-9]* [0-9]*" "$tmp/$src-$comp.report" |
			sed "s/$tag/TAG/" | sort >"$tmp/$src-$comp.markers"
		dump=$(trace-cmd dump --summary --options --flyrecord -i "$f" 2>&1)
		t_eq "$name: trace-cmd dump exits 0" "$?" 0
		t_check "$name: dump shows the BUFFER option" grep -q 'Option BUFFER' <<<"$dump"
		t_check "$name: dump shows CPUSTAT" grep -q 'Option CPUSTAT' <<<"$dump"
		t_check "$name: dump shows our VERSION" grep -q '^recorderd ' <<<"$dump"
		if [ "$comp" = zstd ]; then
			t_check "$name: flyrecord is zstd compressed" grep -q 'zstd' <<<"$dump"
		fi
	done
	t_check "$src: same markers compressed and not" cmp -s "$tmp/$src-zstd.markers" "$tmp/$src-none.markers"
done
t_check "mmap and splice: same markers" cmp -s "$tmp/mmap-zstd.markers" "$tmp/splice-zstd.markers"

# 8 KiB sub-buffers (buffer_subbuf_size_kb, Linux >= 6.8) on an instance we made.
mkdir "$T/instances/$INST"
if echo 8 >"$T/instances/$INST/buffer_subbuf_size_kb" 2>/dev/null; then
	for src in mmap splice; do
		f=$tmp/sb8-$src.dat
		"$RECORDERD" record -q -s "$src" -B "$INST" -o "$f" -- \
			bash -c "$(declare -f flood); T=$T INST=$INST K=$K cpus=(${cpus[*]}); flood sb8$src" \
			>/dev/null 2>&1
		t_eq "8K pages/$src: record exits 0" "$?" 0
		t_check "8K pages/$src: file says 8192-byte pages" \
			grep -q '8192.*Page size' <<<"$(trace-cmd dump --summary -i "$f" 2>&1)"
		trace-cmd report -i "$f" >"$tmp/sb8.report" 2>/dev/null
		check_markers "8K pages/$src" "sb8$src" "$tmp/sb8.report"
	done
else
	t_skip "8K pages" "no buffer_subbuf_size_kb (Linux < 6.8)"
fi
rmdir "$T/instances/$INST"
t_done
