#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Smoke run of the host benchmarks and the results pipeline: `tests/bench/run --smoke`
# (writer record daemon fxt, tiny sizes) into a private results directory must produce
# well-formed figures (summary.csv, summary.md, host_sources.csv) and leave no tracefs
# instance behind; tests/bench/report must draw the plots of a small synthetic data set
# and rewrite only its own section of a README. Figures are checked for form, never
# for their values (benchmarks are not pass/fail).
. "$(dirname "$0")/../lib/tap.sh"
T=/sys/kernel/tracing
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

num='-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'
# row_errors CSV: lines that are not "metric,ours,peer,ratio,goal,unit" rows
row_errors() {
	awk 'NR > 1' "$1" | grep -Ev "^[a-z0-9_.]+,$num,$num,($num|inf),((<=|>=)$num)?,[^,]+\$"
}

# is_png FILE
is_png() { [ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# --- report on a synthetic data set (needs neither root nor tracefs)
syn=$tmp/syn
mkdir -p "$syn"
cat >"$syn/loss_curve.csv" <<'EOF'
recorder,rate,written,lost
trace-cmd,10000,100000,0
trace-cmd,100000,1000000,25000
recorderd-splice,10000,100000,0
recorderd-splice,100000,1000000,0
EOF
cat >"$syn/producer.csv" <<'EOF'
load,tracer,units_per_op,added_per_event
pingpong,untraced,12837,0
pingpong,ftrace,16887,1026
pingpong,ftring,13963,287
EOF
printf '%s\n' metric,ours,peer,ratio,goal,unit \
	producer.pingpong.added_per_event,287,1026,0.28,'<=0.6',units/event \
	host.markers.mmap.zstd_ratio,9.1,9.8,0.93,,x >"$syn/summary.csv"
printf '# Title\n\ntext before\n' >"$tmp/README"
if ! command -v gnuplot >/dev/null; then
	t_skip report.plots "gnuplot not installed"
elif "$TOP/tests/bench/report" --readme "$tmp/README" "$syn" >"$tmp/report.out" 2>&1; then
	for p in loss_curve producer ratio_goal; do
		t_check "report.$p.png" is_png "$syn/$p.png"
	done
	t_check report.summary.md grep -qF \
		'| producer.pingpong.added_per_event | 287 | 1026 | units/event | 0.28 | <=0.6 | yes |' \
		"$syn/summary.md"
	cp "$tmp/README" "$tmp/README.1"
	"$TOP/tests/bench/report" --readme "$tmp/README" "$syn" >/dev/null 2>&1
	t_check report.readme.idempotent cmp -s "$tmp/README" "$tmp/README.1"
	t_eq report.readme.kept "$(head -n 3 "$tmp/README")" "$(printf '# Title\n\ntext before')"
	t_eq report.readme.markers "$(grep -c '^<!-- bench:\(begin\|end\) -->$' "$tmp/README")" 2
	t_check report.readme.table grep -qF \
		'| host.markers.mmap.zstd_ratio | 9.1 | 9.8 | x | 0.93 |  |  |' "$tmp/README"
else
	t_fail report "$(tail -n 3 "$tmp/report.out")"
fi

# --- the host benchmarks, tiny sizes
if [ "$(id -u)" != 0 ] || [ ! -w "$T/instances" ]; then
	t_skip bench.smoke "needs root and a writable $T/instances"
	t_done
fi
for b in "$RECORDERD" "$TOP/build/bench/writer_bench" "$TOP/build/bench/loadgen"; do
	[ -x "$b" ] || { t_skip bench.smoke "no $b (make userspace)"; t_done; }
done
inst_before=$(ls "$T/instances")
on_before=$(cat "$T/tracing_on")
res=$tmp/results
if BENCH_RESULTS=$res "$TOP/tests/bench/run" --smoke writer record daemon fxt \
	>"$tmp/run.out" 2>&1; then
	t_ok bench.smoke.run
else
	t_fail bench.smoke.run "$(grep -m 3 -i 'fail\|error\|exit [1-9]' "$tmp/run.out")"
fi
t_eq bench.summary.header "$(head -n 1 "$res/summary.csv" 2>/dev/null)" \
	metric,ours,peer,ratio,goal,unit
t_eq bench.summary.rows_well_formed "$(row_errors "$res/summary.csv" 2>&1 | head -n 3)" ""
for p in writer host daemon fxt; do
	t_check "bench.summary.has_$p" grep -q "^$p\." "$res/summary.csv"
done
t_eq bench.summary.unique_metrics "$(cut -d, -f1 "$res/summary.csv" | sort | uniq -d)" ""
t_check bench.summary.md grep -q '^| host\.markers\.mmap\.zstd_cpu_per_gb | ' "$res/summary.md"
t_eq bench.host_sources.header "$(head -n 1 "$res/host_sources.csv" 2>/dev/null)" \
	load,run,mb_s,cpu_s_per_gb
t_check bench.host_sources.rows grep -Eq \
	'^(markers|sched),(mmap|splice)/(none|zstd),[0-9.]+,[0-9.]+$' "$res/host_sources.csv"
if command -v gnuplot >/dev/null; then
	t_check bench.host_sources.png is_png "$res/host_sources.png"
fi
t_eq bench.no_instance_left "$(ls "$T/instances")" "$inst_before"
t_eq bench.tracing_on_kept "$(cat "$T/tracing_on")" "$on_before"
t_done
