#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The open-file limit follows the CPU count (issue: any number of CPUs): splice holds
# three files per CPU, so the usual soft limit of 1024 ran out past ~330 CPUs. The
# recorder raises the soft limit to what its CPUs need (up to the hard one). Here a
# soft limit of 10, far below what even 2 CPUs need, must not stop a recording; with
# the hard limit that low too, the warning says why before EMFILE does.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup nofile
command -v prlimit >/dev/null || { t_skip nofile "no prlimit"; t_done; }

prlimit --nofile=10:4096 "$RECORDERD" record -q -s splice -B "$INST" -e sched:sched_switch \
	-o "$TMP/a.dat" -- sh -c "echo nofile-marker >$TRACEFS/instances/$INST/trace_marker" \
	>"$TMP/a.log" 2>&1
t_eq "soft limit 10: record exits 0" "$?" 0
t_check "soft limit 10: the file reads back with the marker" \
	grep -q nofile-marker <(trace-cmd report "$TMP/a.dat" 2>/dev/null)

prlimit --nofile=10:10 "$RECORDERD" record -q -s splice -B "$INST" -e sched:sched_switch \
	-o "$TMP/b.dat" -- true >"$TMP/b.log" 2>&1
rc=$?
if [ "$(prlimit --nofile=10:10 sh -c 'ulimit -Hn 100 2>/dev/null && echo raised')" = raised ]; then
	t_eq "hard limit 10, raised (CAP_SYS_RESOURCE): record exits 0" "$rc" 0
else
	t_eq "hard limit 10: record fails" "$rc" 1
	t_check "hard limit 10: the warning names the limit" \
		grep -q "RLIMIT_NOFILE is below the [0-9]* files [0-9]* CPUs may need" "$TMP/b.log"
fi
t_done
