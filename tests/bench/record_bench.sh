#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# recorderd record under load (never a pass/fail test). Two loads: a marker flood (every
# CPU writing trace_marker nonstop) and a sched flood (pipe ping-pong across CPUs, -e
# sched). For each page source (mmap, splice) and -C none / -C zstd it reports events/s
# and MB/s of pages recorded, the recorder's own CPU seconds per GB of pages and per
# million events (getrusage), the compression ratio (pages / stored flyrecord data, the
# file's metadata not counted) and lost events. Every run uses a
# BENCH_KB (default 2048) KiB per-CPU ring. Peers measured in the same run:
#   cat     one `cat per_cpu/cpuN/trace_pipe_raw` per CPU, restarted when read() returns 0
#           (trace-cmd's read() recorder without splice; trace-cmd record itself cannot
#           run on this host). Its partial pages inflate its MB/s: compare events/s.
#   zstd-1, zstd-3, cat-file  the raw pages of the -C none capture, compressed or copied
#           by the command-line tools: the physical reference for our compression
#
# The host is shared and has 2 CPUs that the loads saturate: compare rows of one run.
#
# Headline figures go through bench_row (tests/bench/lib.sh), each against a physical
# reference measured in the same run, per load (markers, sched) and source (mmap, splice):
#   host.LOAD.SRC.zstd_cpu_per_gb  -C zstd CPU-s per GB of pages vs `zstd -1` on the same
#                                  raw pages (ours also moves the pages and writes a file)
#   host.LOAD.SRC.none_cpu_per_gb  -C none vs `cat` of the same raw pages file to a file
#   host.LOAD.SRC.zstd_ratio       compression ratio (pages / stored data) vs zstd -1's
#   host.LOAD.SRC.events_s         events/s the load got through while recorded (-C none)
#                                  vs while one `cat trace_pipe_raw` per CPU read it (the
#                                  load and the readers share the CPUs); events, because
#                                  cat's partial pages make its MB/s meaningless
#   host.LOAD.mmap_vs_splice.mb_s  MB/s of whole pages (-C none), mmap vs splice
#   host.LOAD.power_vs_process.*   -C zstd on mmap with durability power (the default:
#                                  fdatasync around every sync) vs process: CPU-s/GB, MB/s
# No goal: the issue sets none for this area. Every run also lands in
# $BENCH_RESULTS/host_sources.csv (load,run,mb_s,cpu_s_per_gb; empty = not measured).
#
#   tests/bench/record_bench.sh [--smoke] [SECONDS]   (--smoke: 0.5 s runs, 256 KiB rings)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
rec=$top/build/recorderd
lg=$top/build/bench/loadgen
smoke=0
[ "${1:-}" = --smoke ] && { smoke=1; shift; }
secs=${1:-$([ $smoke = 1 ] && echo 0.5 || echo 3)}
kb=${BENCH_KB:-$([ $smoke = 1 ] && echo 256 || echo 2048)}
res=${BENCH_RESULTS:-$top/tests/bench/results}
T=/sys/kernel/tracing
inst=rec_bench_$$
tmp=$(mktemp -d)
cleanup() {
	[ -n "${catpids:-}" ] && kill $catpids 2>/dev/null
	[ -d "$T/instances/$inst" ] && rmdir "$T/instances/$inst" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
[ -x "$rec" ] && [ -x "$lg" ] || { echo "build first (make userspace)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (tracefs)"; exit 1; }
ncpu=$(nproc)
TIMEFORMAT='%R %U %S'

load_cmd() {
	case $1 in
	markers) echo "$lg markers $T/instances/$inst/trace_marker $secs 96" ;;
	sched) echo "$lg pingpong $secs" ;;
	esac
}
load_events() { [ "$1" = sched ] && echo "-e sched"; }

declare -A R	# results: R[load,what,field]

# ours LOAD SRC COMP [DURABILITY]: the run's key is SRC/COMP, or SRC/COMP/DURABILITY
ours() {
	local load=$1 src=$2 comp=$3 dur=${4:-} out f=$tmp/$1-$2-$3${4:+-$4}.dat
	# shellcheck disable=SC2046
	out=$("$rec" record -s "$src" -C "$comp" -B "$inst" -b "$kb" $(load_events "$load") \
		${dur:+--durability $dur} -o "$f" -- $(load_cmd "$load") 2>&1)
	local s pages mib fmib lost cpu ev
	s=$(sed -n 's/^recorded \([0-9.]*\) s.*/\1/p' <<<"$out")
	read -r pages mib fmib lost < <(sed -n \
		's/.*total pages \([0-9]*\), \([0-9.]*\) MiB of pages -> .*: \([0-9.]*\) MiB .*lost \([0-9]*\)/\1 \2 \3 \4/p' <<<"$out")
	# CPU of the recording itself (drain and finish included, metadata setup not)
	cpu=$(sed -n 's/.*recorder cpu: .* recording \([0-9.]*\) s, .*/\1/p' <<<"$out")
	# events the kernel wrote: entries (incl. read and overrun) + dropped, per CPU
	ev=$(awk '/^  CPU/{for (i = 1; i < NF; i++) if ($i == "entries" || $i == "lost") s += $(i + 1)} END{print s+0}' <<<"$out")
	# markers: the writer's own count is exact
	[ "$load" = markers ] && ev=$(sed -n 's/^ops //p' <<<"$out")
	if [ -z "$pages" ]; then echo "run $load/$src/$comp failed:"; echo "$out"; return; fi
	# chunks the compression threads (SCHED_IDLE) left to the spool (written twice), and
	# those a sync then stored uncompressed (the threads had not got to them by the next)
	R[$load,$src/$comp${dur:+/$dur},spool]=$(sed -n \
		's/.*compression: \([0-9]*\) chunks .*, \([0-9]*\) spilled.*, \([0-9]*\) stored.*/\1 \2 \3/p' \
		<<<"$out" | awk '{ printf "%.0f%%/%.0f%%", $1 ? 100 * $2 / $1 : 0, $1 ? 100 * $3 / $1 : 0 }')
	put "$load,$src/$comp${dur:+/$dur}" "$s" "$ev" "$(awk -v m="$mib" 'BEGIN{print m*1048576}')" \
		"$cpu" \
		"$(awk -v m="$mib" -v f="$(fly_bytes "$f")" 'BEGIN{printf "%.2f", (f > 0) ? m * 1048576 / f : 0}')" \
		"$lost"
	[ "$comp" = none ] && [ "$src" = mmap ] && [ -z "$dur" ] && raw_pages "$f" "$tmp/$load.raw"
}

# put KEY SECONDS EVENTS BYTES CPU_S RATIO LOST
put() {
	local k=$1
	R[$k,ev_s]=$(awk -v e="$3" -v s="$2" 'BEGIN{printf "%.0f", e / s}')
	R[$k,mb_s]=$(awk -v b="$4" -v s="$2" 'BEGIN{printf "%.1f", b / 1e6 / s}')
	R[$k,cpu_gb]=$(awk -v c="$5" -v b="$4" 'BEGIN{printf "%.2f", (b > 0) ? c / (b / 1e9) : 0}')
	R[$k,cpu_mev]=$(awk -v c="$5" -v e="$3" 'BEGIN{printf "%.3f", (e > 0) ? c / (e / 1e6) : 0}')
	R[$k,ratio]=$6
	R[$k,lost]=$(awk -v l="$7" -v e="$3" 'BEGIN{printf "%d (%.2f%%)", l, (e > 0) ? 100 * l / e : 0}')
	rows+=("$k")
}

# Bytes of BUFFER flyrecord data (the pages as stored: compressed or not, no metadata).
fly_bytes() {
	trace-cmd dump --flyrecord -i "$1" 2>/dev/null |
		awk '/\[id, data offset and size\]/{s += $3} END{print s + 0}'
}

# The BUFFER flyrecord data (raw pages) of an uncompressed file, concatenated.
raw_pages() {
	trace-cmd dump --flyrecord -i "$1" 2>/dev/null |
		awk '/\[id, data offset and size\]/{print $2, $3}' |
		while read -r off size; do
			dd if="$1" bs=4096 skip=$((off / 4096)) count=$((size / 4096)) status=none
		done >"$2"
}

# peer_cat LOAD: one cat per CPU reading trace_pipe_raw while the load runs.
peer_cat() {
	local load=$1 c t0 t1 bytes=0 lost=0 ev=0 ticks=0 hz p kids ops
	hz=$(getconf CLK_TCK)
	mkdir "$T/instances/$inst"
	echo "$kb" >"$T/instances/$inst/buffer_size_kb"
	[ "$load" = sched ] && echo 1 >"$T/instances/$inst/events/sched/enable"
	catpids=""
	for ((c = 0; c < ncpu; c++)); do
		# read() of trace_pipe_raw returns 0 now and then under load (not EOF)
		bash -c "while :; do cat $T/instances/$inst/per_cpu/cpu$c/trace_pipe_raw; done" \
			>"$tmp/peer.cpu$c" &
		catpids+=" $!"
	done
	t0=$(date +%s.%N)
	ops=$($(load_cmd "$load") | sed -n 's/^ops //p')
	echo 0 >"$T/instances/$inst/tracing_on"
	t1=$(date +%s.%N)
	sleep 0.5
	for p in $catpids; do
		# the loop's own time + its reaped cats' (the running cat's is missed)
		ticks=$((ticks + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	kids=$(for p in $catpids; do pgrep -P "$p"; done)
	kill $catpids 2>/dev/null; wait $catpids 2>/dev/null
	# shellcheck disable=SC2086
	[ -n "$kids" ] && kill $kids 2>/dev/null
	catpids=""
	for ((c = 0; c < ncpu; c++)); do
		bytes=$((bytes + $(stat -c %s "$tmp/peer.cpu$c")))
		read -r l e < <(awk '/^dropped events:/{d = $NF} /^overrun:/{o = $NF}
			/^entries:/{n = $NF} /^read events:/{r = $NF}
			END{print d + o, n + o + r + d}' "$T/instances/$inst/per_cpu/cpu$c/stats")
		lost=$((lost + l)); ev=$((ev + e))
	done
	[ "$load" = sched ] && echo 0 >"$T/instances/$inst/events/sched/enable"
	[ "$load" = markers ] && ev=$ops
	rmdir "$T/instances/$inst"
	put "$load,peer:cat" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b - a}')" "$ev" "$bytes" \
		"$(awk -v t="$ticks" -v hz="$hz" 'BEGIN{print t / hz}')" "1.00" "$lost"
	if [ "$ticks" = 0 ]; then	# the cats were gone before we could read their times
		R[$load,peer:cat,cpu_gb]="n/a"; R[$load,peer:cat,cpu_mev]="n/a"
	fi
}

# peer_tool LOAD NAME CMD...: CPU/GB and ratio of a tool over the raw pages.
peer_tool() {
	local load=$1 name=$2 raw=$tmp/$1.raw t size csize k
	shift 2
	size=$(stat -c %s "$raw" 2>/dev/null || echo 0)
	[ "$size" -gt 0 ] || return
	t=$( { time "$@" <"$raw" >"$tmp/tool.out"; } 2>&1 | tail -n 1)
	csize=$(stat -c %s "$tmp/tool.out")
	k="$load,peer:$name"
	R[$k,cpu_gb]=$(awk -v t="$t" -v b="$size" 'BEGIN{split(t, a, " ")
		printf "%.2f", (a[2] + a[3]) / (b / 1e9)}')
	R[$k,ratio]=$(awk -v a="$size" -v b="$csize" 'BEGIN{printf "%.2f", (b > 0) ? a / b : 0}')
	# file to file, not comparable with the recorder's MB/s (bounded by the load)
	R[$k,mb_s]=$(awk -v t="$t" -v b="$size" 'BEGIN{split(t, a, " ")
		printf "%.1f", (a[1] > 0) ? b / 1e6 / a[1] : 0}')
	R[$k,ev_s]="-"; R[$k,lost]="-"; R[$k,cpu_mev]="-"
	rows+=("$k")
}

rows=()
for load in markers sched; do
	for src in mmap splice; do
		for comp in none zstd; do
			ours "$load" "$src" "$comp"
		done
	done
	# what durability = power (the default: fdatasync at every sync) costs
	ours "$load" mmap zstd process
	peer_cat "$load"
	peer_tool "$load" zstd-1 zstd -1 -c
	peer_tool "$load" zstd-3 zstd -3 -c
	peer_tool "$load" cat-file cat
done

echo "recorderd record benchmark: $secs s per run, $ncpu CPUs, ${kb} KiB ring per CPU, $(uname -r)"
echo "(peer:zstd-*/cat-file: MB/s is file to file, not bounded by a load)"
echo "(spool/stored: chunks the compression threads left to the spool file, written twice;"
echo " of all chunks, those a sync stored uncompressed, not compressed by the next sync)"
printf '%-8s %-14s %9s %7s %9s %11s %7s %12s %s\n' load run events/s MB/s cpu-s/GB cpu-s/Mev \
	ratio spool/stored lost
for k in "${rows[@]}"; do
	printf '%-8s %-14s %9s %7s %9s %11s %7s %12s %s\n' "${k%%,*}" "${k#*,}" "${R[$k,ev_s]}" \
		"${R[$k,mb_s]}" "${R[$k,cpu_gb]}" "${R[$k,cpu_mev]}" "${R[$k,ratio]}" \
		"${R[$k,spool]:--}" "${R[$k,lost]}"
done

# host_sources.csv: every run of this benchmark, for the plots
num() { [[ ${1:-} =~ ^[0-9.]+$ ]] && echo "$1"; }
mkdir -p "$res"
{
	echo "load,run,mb_s,cpu_s_per_gb"
	for k in "${rows[@]}"; do
		echo "${k%%,*},${k#*,},$(num "${R[$k,mb_s]}"),$(num "${R[$k,cpu_gb]}")"
	done
} >"$res/host_sources.csv"

# row METRIC KEY FIELD PEER-KEY PEER-FIELD UNIT [GOAL]: a bench_row when both figures exist
row() {
	local o p
	o=$(num "${R[$2,$3]:-}") p=$(num "${R[$4,$5]:-}")
	if [ -z "$o" ] || [ -z "$p" ]; then
		echo "  $1: not measured (${R[$2,$3]:-none} vs ${R[$4,$5]:-none})"
		return
	fi
	bench_row "$1" "$o" "$p" "${7:-}" "$6"
}

echo
echo "headline figures, ours vs the physical reference of the same run (ratio ours/peer;"
echo "cpu: lower is better; compression ratio, events/s: higher is better)"
for load in markers sched; do
	for src in mmap splice; do
		m=host.$load.$src
		# issue 14: our overhead over the codec itself at most 5%
		row "$m.zstd_cpu_per_gb" "$load,$src/zstd" cpu_gb "$load,peer:zstd-1" cpu_gb cpu-s/GB \
			"<=1.05"
		row "$m.none_cpu_per_gb" "$load,$src/none" cpu_gb "$load,peer:cat-file" cpu_gb \
			cpu-s/GB
		row "$m.zstd_ratio" "$load,$src/zstd" ratio "$load,peer:zstd-1" ratio x
		row "$m.events_s" "$load,$src/none" ev_s "$load,peer:cat" ev_s events/s
	done
	row "host.$load.mmap_vs_splice.mb_s" "$load,mmap/none" mb_s "$load,splice/none" mb_s MB/s
	row "host.$load.power_vs_process.cpu_per_gb" "$load,mmap/zstd" cpu_gb \
		"$load,mmap/zstd/process" cpu_gb cpu-s/GB
	row "host.$load.power_vs_process.mb_s" "$load,mmap/zstd" mb_s \
		"$load,mmap/zstd/process" mb_s MB/s
done
