#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The rings read over threads (recorder/source/drain_threads.c; issue: never the
# bottleneck, any number of CPUs). `recorderd record` reads each CPU's ring on a thread
# of its own (from 4 CPUs up by default, or --drain-threads N; on the module's rings
# pinned to that CPU), and the page path takes the pages from their queues. Here two
# writers pinned to CPUs 0 and 1 flood 64 KiB rings (far less than they write, so the
# rings overflow unless read in time) and:
#  - every marker the file holds is there once, in each writer's order, for each page
#    source and thread count (0: the page path reads the rings itself);
#  - what is not in the file is what the summary counts as lost: nothing vanishes in
#    the queues;
#  - the threads exist while recording (one per CPU, named rd-drain/CPU), and none with
#    --drain-threads 0;
#  - a sync while the writers run (and the final one) takes the pages of the queues and
#    of the rings in order: every marker written before `kill -INT` is in the file;
#  - --compress-threads 0 (compress on the page path) is taken, as its help says.
# Whether the threads lose less is a measurement (tests/bench), not checked here.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup drain
[ "$(nproc)" -ge 2 ] || { t_skip drain "needs 2 CPUs"; t_done; }
N=${N:-60000}
M=$TRACEFS/instances/$INST/trace_marker

# writer CPU COUNT: "wCPU I" for I in 1..COUNT, one write each, on CPU
cat >"$TMP/writer.sh" <<'EOF'
#!/bin/bash
for ((i = 1; i <= $2; i++)); do echo "w$1 $i"; done
EOF
chmod +x "$TMP/writer.sh"

# check NAME FILE LOG: each writer's markers once and in order; found + lost = written
check() {
	local name=$1 f=$2 log=$3 c total=0 lost
	trace-cmd report "$f" 2>/dev/null >"$TMP/report.txt"
	for c in 0 1; do
		grep -oE "w$c [0-9]+$" "$TMP/report.txt" | awk '{ print $2 }' >"$TMP/seq.$c"
		t_check "$name: writer $c: in order, none twice" sort -n -u -c "$TMP/seq.$c"
		total=$((total + $(wc -l <"$TMP/seq.$c")))
	done
	lost=$(sed -n 's/.*, lost \([0-9]*\)$/\1/p' "$log")
	t_eq "$name: found + counted lost = written" "$((total + ${lost:-0}))" $((2 * N))
	echo "# $name: found $total, lost ${lost:-?}"
}

for src in mmap splice; do
	for th in 2 0; do
		name="$src --drain-threads $th"
		"$RECORDERD" record -B "$INST" -s "$src" --drain-threads "$th" -b 64 \
			-o "$TMP/$src-$th.dat" -- bash -c "
			taskset -c 0 $TMP/writer.sh 0 $N >$M & taskset -c 1 $TMP/writer.sh 1 $N >$M &
			sleep 0.3
			for t in /proc/\$PPID/task/*; do
				echo \"\$(cat \$t/comm) \$(cut -d' ' -f39 \$t/stat)\"
			done >$TMP/threads.txt
			wait" >"$TMP/$src-$th.log" 2>&1
		rc=$?
		if [ $rc != 0 ] && [ $src = mmap ]; then
			t_skip "$name" "no mmap source here: $(tail -n 1 "$TMP/$src-$th.log")"
			continue
		fi
		t_eq "$name: exit 0" "$rc" 0
		threads=$(grep -c '^rd-drain/' "$TMP/threads.txt")
		if [ "$th" = 2 ]; then
			t_eq "$name: a thread per CPU" \
				"$(grep -o '^rd-drain/[0-9]*' "$TMP/threads.txt" | sort | tr '\n' ' ')" \
				"rd-drain/0 rd-drain/1 "
		else
			t_eq "$name: no drain thread" "$threads" 0
		fi
		check "$name" "$TMP/$src-$th.dat" "$TMP/$src-$th.log"
	done
done

# the default: one per CPU from 4 CPUs up (drain_threads.h), none below
"$RECORDERD" record -B "$INST" -s splice -o "$TMP/auto.dat" -- bash -c "
	sleep 0.3; grep -l '^rd-drain/' /proc/\$PPID/task/*/comm | wc -l >$TMP/auto.txt" \
	>"$TMP/auto.log" 2>&1
want=0
[ "$(nproc)" -ge 4 ] && want=$(nproc)
t_eq "default on $(nproc) CPUs: $want drain threads" "$(cat "$TMP/auto.txt")" "$want"

# syncs every 50 ms under load (each takes the queues, then the rings under the CPUs'
# locks), then SIGINT: every marker written before the signal is in the file, in order
rm -f "$TMP/sig.dat"
# off first, so that the wait below is for the recorder's "on" (it puts 0 back); with
# the instance's "on" of its creation the wait passed at once, and writers started
# before the recording could write uncounted (one run found 3702 of 40000, 0 lost)
echo 0 >"$TRACEFS/instances/$INST/tracing_on"
"$RECORDERD" record -B "$INST" -s splice -b 1024 --drain-threads 2 --sync-ms 50 \
	-o "$TMP/sig.dat" \
	>"$TMP/sig.log" 2>&1 &
rpid=$!
for _ in $(seq 50); do
	[ "$(cat "$TRACEFS/instances/$INST/tracing_on" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
taskset -c 0 "$TMP/writer.sh" 0 20000 >"$M" & w0=$!
taskset -c 1 "$TMP/writer.sh" 1 20000 >"$M" & w1=$!
wait $w0 $w1
kill -INT $rpid
wait $rpid
t_eq "sync under load, SIGINT: exit 0" "$?" 0
N=20000 check "sync under load" "$TMP/sig.dat" "$TMP/sig.log"

# 0 threads of the other kind, as --help documents it (refused as a bad value before)
"$RECORDERD" record -B "$INST" -s splice --compress-threads 0 -o "$TMP/c0.dat" -- \
	sh -c "echo c0-marker >$M" >"$TMP/c0.log" 2>&1
t_eq "--compress-threads 0: exit 0" "$?" 0
t_check "--compress-threads 0: the file holds the marker" \
	grep -q c0-marker <(trace-cmd report "$TMP/c0.dat" 2>/dev/null)
t_done
