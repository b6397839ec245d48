# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmarks: one way to state a figure next to its peer.
#
#   bench_row METRIC OURS PEER GOAL UNIT
#	METRIC	name of the figure, [a-z0-9_.]+ (e.g. producer.pingpong.cost_per_event)
#	OURS	our figure; PEER the peer's figure from the same run (same unit)
#	GOAL	bound the ratio ours/peer must meet ("<=0.6", ">=2"), or "" (none)
#	UNIT	unit of OURS and PEER (e.g. units/event, cpu-s/GB, MB/s, bytes, events)
# Prints the row for a reader and, when BENCH_ROWS names a file, appends
# "metric,ours,peer,ratio,goal,unit" to it (tests/bench/run collects those files into
# results/summary.csv). ratio = ours/peer; 1 when both are 0, "inf" when only the
# peer is 0. Whether a goal is met is shown, never turned into an exit status.

bench_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (b + 0 == 0) { print (a + 0 == 0) ? "1.00" : "inf"; exit }
		r = a / b
		printf (r < 0.1 && r > -0.1) ? "%.3f\n" : "%.2f\n", r
	}'
}

# bench_goal_met RATIO GOAL -> yes / no / "" (no goal or no number)
bench_goal_met() {
	awk -v r="$1" -v g="$2" 'BEGIN {
		if (g == "" || r == "inf" && g ~ /^<=/) { print (g == "" ? "" : "no"); exit }
		if (r == "inf") { print "yes"; exit }
		op = substr(g, 1, 2); v = substr(g, 3) + 0
		if (op == "<=") print (r + 0 <= v) ? "yes" : "no"
		else if (op == ">=") print (r + 0 >= v) ? "yes" : "no"
	}'
}

bench_row() {
	local metric=$1 ours=$2 peer=$3 goal=$4 unit=$5 ratio met
	if ! [[ $metric =~ ^[a-z0-9_.]+$ ]]; then
		echo "bench_row: bad metric name '$metric'" >&2
		return 1
	fi
	for v in "$ours" "$peer"; do
		if ! [[ $v =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
			echo "bench_row: $metric: '$v' is not a number" >&2
			return 1
		fi
	done
	ratio=$(bench_ratio "$ours" "$peer")
	met=$(bench_goal_met "$ratio" "$goal")
	printf '  %-50s ours %12s  peer %12s  %-10s ratio %6s%s\n' "$metric" "$ours" "$peer" \
		"$unit" "$ratio" "${goal:+  (goal $goal: $met)}"
	[ -z "${BENCH_ROWS:-}" ] || printf '%s,%s,%s,%s,%s,%s\n' "$metric" "$ours" "$peer" \
		"$ratio" "$goal" "$unit" >>"$BENCH_ROWS"
}
