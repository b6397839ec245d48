#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The page path never walks /proc (issue: never the bottleneck). Every sync names the
# tasks in the file's tail (/proc/PID/task/TID/comm of each thread of the machine):
# done on the page path, that walk took 28-36 ms each second in a 2-vCPU guest with
# about 100 tasks, and the 256 KiB ring of a 224 k/s marker writer overflowed during it
# (the 2-vCPU loss curve's bursts). Now a thread of its own walks, and the page path
# takes its last walk. Checked under strace, with a sync every 200 ms, for the splice
# and mmap sources:
#  - no thread that moves pages (splice, or the mmap ring's GET_READER ioctl) opens
#    /proc (before: one walk a sync and one at the end, all on the page path);
#  - the walks happen (on another thread): at least one a sync while markers come;
#  - the file holds every marker and trace-cmd names their writer.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup names
command -v strace >/dev/null || { t_skip names "no strace"; t_done; }
M=$TRACEFS/instances/$INST/trace_marker

for src in splice mmap; do
	if [ $src = mmap ] && ! "$RECORDERD" record -q -s mmap -B "$INST" -e sched:sched_switch \
		-o "$TMP/probe.dat" -- true >/dev/null 2>&1; then
		t_skip "$src" "no mmap of trace_pipe_raw on this kernel"
		continue
	fi
	# 1.5 s of markers, so about 7 syncs; a writer named apart for the report
	strace -f -o "$TMP/st.$src" -e trace=openat,ioctl,splice \
		"$RECORDERD" record -q -s $src -B "$INST" -e sched:sched_switch --sync-ms 200 \
		-o "$TMP/$src.dat" -- bash -c "echo -n names-writer >/proc/self/comm
			for i in \$(seq 1 300); do echo \"names \$i\" >$M; sleep 0.005; done" \
		>"$TMP/$src.log" 2>&1
	t_eq "$src: recording exits 0" "$?" 0
	# the threads that moved pages: splice() calls or GET_READER, _IO('R', 0x20) (as
	# strace 6.1 prints it, or by name), and the event loop (the first pid) that
	# runs the syncs, whether it moves pages itself or drain threads do
	movers=$( (head -n 1 "$TMP/st.$src"
		grep -E '^[0-9]+ +(splice\(|ioctl\([0-9]+, (_IOC\(_IOC_NONE, 0x52, 0x20|TRACE_MMAP_IOCTL_GET_READER))' \
			"$TMP/st.$src") | awk '{ print $1 }' | sort -u | tr '\n' ' ')
	t_check "$src: strace saw the page path (threads: ${movers:-none})" test -n "$movers"
	walks_by() { grep -E "^$1 +openat\\(AT_FDCWD, \"/proc\"," "$TMP/st.$src" | wc -l; }
	on_path=0
	for tid in $movers; do on_path=$((on_path + $(walks_by "$tid"))); done
	t_eq "$src: walks of /proc on the page path" "$on_path" 0
	all=$(walks_by '[0-9]+')
	t_check "$src: /proc walked on another thread ($all walks)" test "$all" -ge 3
	report_to "$TMP/$src.dat" "$TMP/$src.txt"
	t_check "$src: trace-cmd reads the file" test $? -eq 0
	t_check "$src: every marker is in the file" \
		is_seq 300 < <(markers_in "$TMP/$src.txt" names)
	t_check "$src: their writer is named" grep -q "names-writer-[0-9]* .*names 300$" \
		"$TMP/$src.txt"
done
t_done
