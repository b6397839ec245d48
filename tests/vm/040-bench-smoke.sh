#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tiny run of the in-guest producer/marker benchmark, the way tests/bench/vm_bench
# combines it: one -smp 1 icount boot runs tests/bench/vm_pingpong_guest.sh (passed with
# -f) as a part of a bigger guest script, then tests/bench/vm_pingpong --analyse reads
# the out dir. Checks that every figure, row and CSV line is produced and is a number,
# and that the guest part leaves tracefs and the module as it found them. Not timed, no
# threshold on the figures themselves. Run again on 6.12 by tests/vm/090-kernel-6.12.sh
# (VM_KVER set): there the analysis names the rows as `tests/bench/run vm_pingpong_6.12`
# does (vm_pingpong --kver 6.12: rows 6.12.METRIC, plot data producer-6.12.csv).
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if ! command -v qemu-system-x86_64 >/dev/null || [ ! -x "$TOP/build/vm/progs/vm_pingpong" ]; then
	t_skip bench-smoke "no qemu or build/vm/progs/vm_pingpong (make)"
	t_done
fi
vm_outdir bench-smoke
out=$VM_DIR
guest=$TOP/tests/bench/vm_pingpong_guest.sh
kver=() pfx='' csv=$out/producer.csv
if [ -n "${VM_KVER:-}" ]; then
	series=$(sed -E 's/^([0-9]+\.[0-9]+)\..*/\1/' <<<"$VM_KVER")
	kver=(--kver "$series") pfx=$series. csv=$out/producer-$series.csv
fi

# The bigger guest script: state of tracefs and ftring before and after the part.
cat >"$out/part.sh" <<'EOF'
#!/bin/sh
T=/sys/kernel/tracing
state() {
	echo "tracing_on=$(cat $T/tracing_on) buffer_size_kb=$(cat $T/buffer_size_kb)" \
		"sched_events=$(cat $T/events/sched/enable) instances=$(ls $T/instances | tr '\n' ,)" \
		"ftring=$(grep -c '^ftring ' /proc/modules)"
}
state >/out/state-before
vm_pingpong_guest.sh "$@"
rc=$?
state >/out/state-after
exit $rc
EOF
"$VM_RUN" -c 1 --icount -t 600 -o "$out" -f "$guest" "$out/part.sh" 500 200 20 2 1 \
	>"$out/raw.txt"
t_eq bench-smoke.guest "$?" 0
# A boot-size top-level buffer ("7 (expanded: 1408)") may come back expanded (1408 KB
# rounded up to whole 4080-byte data pages): the size its first use would give it.
before=$(cat "$out/state-before" 2>&1) after=$(cat "$out/state-after" 2>&1)
if [[ $before =~ buffer_size_kb=[0-9]+\ \(expanded:\ ([0-9]+)\) ]]; then
	kb=${BASH_REMATCH[1]}
	before=${before/"${BASH_REMATCH[0]}"/buffer_size_kb=$(((kb * 1024 + 4079) / 4080 * 4080 / 1024))}
fi
t_eq bench-smoke.state "$after" "$before"

BENCH_RESULTS=$out BENCH_ROWS=$out/rows.csv "$TOP/tests/bench/vm_pingpong" "${kver[@]}" \
	--analyse "$out" >"$out/report.out" 2>&1
t_eq bench-smoke.analyse "$?" 0
rep=$(cat "$out/report.out")
sed 's/^/# /' <<<"$rep"

num='-?[0-9]+(\.[0-9]+)?'
# the kernel the guest part says it ran on (VM_KVER's, when set)
t_check bench-smoke.kernel grep -qF ", kernel ${VM_KVER:-}" <<<"$(head -n 1 <<<"$rep")"
t_check bench-smoke.untraced test "$(grep -cE "^  untraced +$num\$" <<<"$rep")" = 2
t_check bench-smoke.ftrace test "$(grep -cE "^  ftrace( +$num){4}( +\+-$num)?\$" <<<"$rep")" = 2
have_ko=0
[ -f "$VM_KO" ] && have_ko=1
if [ $have_ko = 1 ]; then
	t_check bench-smoke.ftring test "$(grep -cE "^  ftring( +$num){4}( +\+-$num)?\$" <<<"$rep")" = 2
	# ping-pong's ratio is a number even in a tiny run; fork/exec's may be n/a there
	# (ftrace's added cost within the noise of a few runs), but the line is printed
	t_check bench-smoke.ratio grep -qE \
		"^  ratio ftring/ftrace, added cost per event: $num " <<<"$rep"
	t_check bench-smoke.ratio-lines test \
		"$(grep -cE "^  ratio ftring/ftrace, added cost per event: ($num|n/a) " <<<"$rep")" = 2
	for b in 16 128 1024; do
		t_check "bench-smoke.marker-$b" grep -qE \
			"^  $b( +$num){5} +$num net, $num raw\$" <<<"$rep"
	done
else
	t_skip bench-smoke.ftring "kmod/ftring.ko not built"
fi

# Rows: the headline metrics, ours and peer numbers, the events each tracer wrote per
# op non-zero (a tracer that recorded nothing would make every cost meaningless).
rows() { cat "$out/rows.csv" 2>/dev/null; }
if [ $have_ko = 1 ]; then
	for m in producer.pingpong.cost_per_event producer.forkexec.cost_per_event \
		marker.16.net_cost marker.128.net_cost marker.1024.net_cost; do
		t_check "bench-smoke.row.$m" grep -qE \
			"^$pfx$m,$num,$num,(inf|$num),<=0\.[0-9]+,units/" <<<"$(rows)"
	done
	for l in pingpong forkexec; do
		t_check "bench-smoke.events.$l" awk -F, -v m="${pfx}producer.$l.events_per_op" \
			'$1 == m { ok = $2 > 0 && $3 > 0 } END { exit !ok }' "$out/rows.csv"
	done
fi

# producer.csv: the header and one line per load and tracer, numbers in both columns.
t_eq bench-smoke.csv.header "$(head -n 1 "$csv" 2>&1)" "load,tracer,units_per_op,added_per_event"
want=$((2 * (2 + have_ko) + 3 * (2 + have_ko)))
line="^(pingpong|forkexec|marker(16|128|1024)),(untraced|null|ftrace|ftring),$num,$num\$"
t_eq bench-smoke.csv.lines "$(grep -cE "$line" "$csv")" "$want"
t_done
