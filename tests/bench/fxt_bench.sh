#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# FXT export speed and memory on a large capture (never a pass/fail test).
#
# Makes a capture of EVENTS_MB MiB per CPU of raw ftrace pages (markers flooded from every
# CPU, raw_syscalls, sched, irq) in a tracefs instance of its own, turns it into a v7 zstd
# trace.dat with trace-cmd (restore + convert, kallsyms left out), or takes FILE=... as
# is; then times `recorderd export --fxt` against its peer `trace-cmd report` reading
# the same file, and prints events/s, MB/s and peak RSS of both. Time and peak RSS go
# through bench_row (tests/bench/lib.sh) as fxt.export_s and fxt.peak_rss_mib.
#   tests/bench/fxt_bench.sh            EVENTS_MB=32 by default
#   tests/bench/fxt_bench.sh --smoke    EVENTS_MB=1
#   FILE=big.dat tests/bench/fxt_bench.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
RECORDERD=${RECORDERD:-$top/build/recorderd}
T=/sys/kernel/tracing
INST=fxt_bench_$$
[ "${1:-}" = --smoke ] && EVENTS_MB=${EVENTS_MB:-1}
MB=${EVENTS_MB:-32}
tmp=$(mktemp -d)
cleanup() { [ -d "$T/instances/$INST" ] && rmdir "$T/instances/$INST"; rm -rf "$tmp"; }
trap cleanup EXIT
# KEEP=PATH keeps the capture made for a later FILE=PATH run


if [ ! -x "$RECORDERD" ]; then
	echo "fxt_bench: no $RECORDERD (make userspace)"; exit 1
fi

make_capture() {
	local I=$T/instances/$INST c e
	mkdir "$I" || return 1
	echo $((MB * 1024)) >"$I/buffer_size_kb"
	for e in sched/sched_switch sched/sched_wakeup irq raw_syscalls; do
		echo 1 >"$I/events/$e/enable"
	done
	echo 1 >"$I/tracing_on"
	# fill every CPU's buffer: markers (and their syscalls) pinned to each CPU
	for ((c = 0; c < $(nproc); c++)); do
		taskset -c "$c" bash -c "end=\$((SECONDS + 20)); i=0
			while [ \$SECONDS -lt \$end ]; do
				for ((k = 0; k < 2000; k++)); do echo \"bench marker \$i \$k\"; done
				i=\$((i + 1))
				[ \$(cat $I/per_cpu/cpu$c/stats | sed -n 's/^bytes: //p') -gt \
				  $((MB * 1024 * 1024 * 9 / 10)) ] && break
			done >$I/trace_marker" &
	done
	wait
	echo 0 >"$I/tracing_on"
	for ((c = 0; c < $(nproc); c++)); do
		dd if="$I/per_cpu/cpu$c/trace_pipe_raw" of="$tmp/cpu$c" iflag=nonblock bs=1M \
			2>/dev/null
	done
	rmdir "$I"
	: >"$tmp/kallsyms"
	trace-cmd restore -c -k "$tmp/kallsyms" -o "$tmp/head.dat" >/dev/null 2>&1 &&
	trace-cmd restore -i "$tmp/head.dat" -o "$tmp/raw.dat" "$tmp"/cpu[0-9]* >/dev/null 2>&1 &&
	trace-cmd convert --file-version 7 --compression zstd -i "$tmp/raw.dat" \
		-o "$tmp/big.dat" >/dev/null 2>&1 && rm -f "$tmp/raw.dat" "$tmp"/cpu[0-9]*
}

if [ -n "${FILE:-}" ]; then
	in=$FILE
else
	echo "making a capture of ${MB} MiB per CPU ..."
	make_capture || { echo "fxt_bench: cannot make a capture (root and tracefs needed)"; exit 1; }
	in=$tmp/big.dat
	[ -n "${KEEP:-}" ] && cp "$in" "$KEEP" && echo "kept the capture as $KEEP"
fi

# runs "$@", prints "seconds peak-RSS-KiB"
measure() {
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "fxt_bench: $* failed: $(tail -n 3 "$tmp/err")" >&2; return 1; }
	cat "$tmp/time"
}

read -r rep_s rep_kb < <(measure trace-cmd report "$in")
read -r exp_s exp_kb < <(measure "$RECORDERD" export --fxt "$in" "$tmp/out.fxt")
[ -s "$tmp/out.fxt" ] || exit 1
in_mb=$(stat -c %s "$in" | awk '{ printf "%.1f", $1 / 1048576 }')
out_mb=$(stat -c %s "$tmp/out.fxt" | awk '{ printf "%.1f", $1 / 1048576 }')
rec=$("$RECORDERD" export --fxt "$in" "$tmp/out.fxt" 2>&1 | sed -n 's/^exported \([0-9]*\) records.*/\1/p')

awk -v ev="$rec" -v in_mb="$in_mb" -v out_mb="$out_mb" -v es="$exp_s" -v ek="$exp_kb" \
    -v rs="$rep_s" -v rk="$rep_kb" 'BEGIN {
	if (es <= 0) es = 0.01; if (rs <= 0) rs = 0.01
	printf "input: %s MiB trace.dat, %d records\n", in_mb, ev
	printf "%-28s %8s %12s %10s %10s\n", "", "seconds", "records/s", "in MiB/s", "peak RSS"
	printf "%-28s %8.2f %12.0f %10.1f %7.1f MiB\n", "recorderd export --fxt", es, ev / es,
	       in_mb / es, ek / 1024
	printf "%-28s %8.2f %12.0f %10.1f %7.1f MiB\n", "trace-cmd report (peer)", rs, ev / rs,
	       in_mb / rs, rk / 1024
	printf "export / report time: %.2f   FXT output: %s MiB (%.1f MiB/s)\n", es / rs, out_mb,
	       out_mb / es
}'
bench_row fxt.export_s "$exp_s" "$rep_s" "" s
bench_row fxt.peak_rss_mib "$(awk -v k="$exp_kb" 'BEGIN { printf "%.1f", k / 1024 }')" \
	"$(awk -v k="$rep_kb" 'BEGIN { printf "%.1f", k / 1024 }')" "" MiB
