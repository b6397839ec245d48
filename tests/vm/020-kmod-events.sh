#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ftring in a 2-vCPU guest (tests/vm/guest/kmod-events.sh): every event type of a known
# workload with its field values, read through the mapping; the same workload
# recorded by `recorderd record -s kmod`, whose trace.dat is checked here with
# trace-cmd report; flood accounting (discard and overwrite) with IRQ-context events
# nesting into marker writers; CPU hotplug during a capture; rmmod while mapped,
# while blocked and while recording. The guest's kernel log must stay clean.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if [ ! -f "$VM_KO" ]; then
	t_skip kmod-events "kmod/ftring.ko not built (make module)"
	t_done
fi
for p in ftring_ctl ftring_flood ftring_workload; do
	[ -x "$VM_BDIR/vm/progs/$p" ] || { t_fail kmod-events "build/vm/progs/$p missing (make)"; t_done; }
done
vm_test kmod-events -c 2 -t 900 --with-trace-cmd -- "$TOP/tests/vm/guest/kmod-events.sh"

# Side by side: the workload's scheduler events, as ftrace (trace-cmd) and ftring saw
# them at the same time, from its exec to its exit, must be the same multiset. Events in
# the stream's order where the time ties (ftrace's report has microseconds, and the
# switch into the workload often shares one with its exec), the time in full (awk's
# default print kept 6 digits: 21.6868).
canon() {
	# stdin: "trace-cmd report -R" lines or "ftring_ctl dump" lines; $1 $2: the pids
	awk -v P="$1" -v C="$2" '
		{
			name = ""; delete f
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^sched_[a-z_]+:?$/) { name = $i; sub(":", "", name) }
				else if ($i ~ /^ts=/) ts = substr($i, 4) / 1e9
				else if ($i ~ /^[0-9.]+:$/) ts = substr($i, 1, length($i) - 1) + 0
				if (name != "" && split($i, kv, "=") == 2) f[kv[1]] = kv[2]
			}
			if (name == "") next
			if (name == "sched_switch")
				k = "switch " f["prev_pid"] " " f["prev_state"] " " f["next_pid"]
			else if (name == "sched_wakeup" || name == "sched_wakeup_new")
				k = name " " f["pid"] " " f["prio"]
			else if (name == "sched_process_fork")
				k = "fork " f["parent_pid"] " " f["child_pid"]
			else if (name == "sched_process_exec")
				k = "exec " f["filename"] " " f["pid"] " " f["old_pid"]
			else if (name == "sched_process_exit")
				k = "exit " f["comm"] " " f["pid"]
			else
				next
			if (k !~ (" " P "( |$)") && k !~ (" " C "( |$)")) next
			printf "%.9f %s\n", ts, k
		}' | sort -s -n -k 1,1 | awk -v P="$1" '
		/ exec / && $4 == P { on = 1 }
		on { $1 = ""; print substr($0, 2) }
		/ exit / && $4 == P { on = 0 }' | sort
}
if [ -s "$VM_DIR/side-ftrace.dat" ] && [ -s "$VM_DIR/side-ftring.txt" ]; then
	sP=$(sed -n 's/.*parent=\([0-9]*\).*/\1/p' "$VM_DIR/side-workload.txt")
	sC=$(sed -n 's/.*child=\([0-9]*\).*/\1/p' "$VM_DIR/side-workload.txt")
	trace-cmd report -R "$VM_DIR/side-ftrace.dat" 2>/dev/null | canon "$sP" "$sC" >"$VM_DIR/side-ftrace.canon"
	canon "$sP" "$sC" <"$VM_DIR/side-ftring.txt" >"$VM_DIR/side-ftring.canon"
	n=$(wc -l <"$VM_DIR/side-ftrace.canon")
	if [ "$n" -lt 40 ]; then
		t_fail side.events "only $n workload events from ftrace (see $VM_DIR/side-ftrace.canon)"
	elif d=$(diff "$VM_DIR/side-ftrace.canon" "$VM_DIR/side-ftring.canon"); then
		t_ok side.same-events-as-ftrace
		echo "# side by side: the same $n workload events in ftrace and ftring"
	else
		t_fail side.same-events-as-ftrace "ftrace vs ftring differ: $(head -n 6 <<<"$d" | tr '\n' ' ')"
	fi
else
	t_skip side "no side-by-side capture from the guest"
fi

# The recorderd capture, read on the host by trace-cmd (the reader of truth): it must
# print every event of the workload with the right fields and no decoding trouble.
dat=$VM_DIR/kmod.dat
if [ ! -s "$dat" ]; then
	t_skip report "no kmod.dat from the guest"
	t_done
fi
rep=$VM_DIR/kmod-report.txt
trace-cmd report "$dat" >"$rep" 2>"$VM_DIR/kmod-report.err"
t_eq report.exit "$?" 0
t_eq report.no-warnings "$(grep -ciE 'error|warning|failed|bad|unknown' "$VM_DIR/kmod-report.err")" 0
t_eq report.no-unknown-events "$(grep -c 'UNKNOWN EVENT\|\[FAILED TO PARSE\]' "$rep")" 0
# The recorded workload's own pids (not those of the dump run above).
R=$(grep -oE 'ftw start [0-9]+' "$rep" | head -n 1 | awk '{ print $3 }')
C=$(grep -oE 'ftw done [0-9]+' "$rep" | head -n 1 | awk '{ print $3 }')
if [ -z "$R" ] || [ -z "$C" ]; then
	t_fail report.markers "no 'ftw start'/'ftw done' marker in the report"
else
	t_ok report.markers
	chk() { if grep -qE -- "$2" "$rep"; then t_ok "report.$1"; else t_fail "report.$1" "no line matching '$2'"; fi; }
	chk marker-text "[^ ]+-$R +\[[0-9]+\] .* marker: +ftw start $R\$"
	chk fork "sched_process_fork: +comm=ftw-parent pid=$R child_comm=ftw-parent child_pid=$C\$"
	chk wakeup_new "sched_wakeup_new: +ftw-parent:$C \[120\]"
	chk switch "sched_switch: +ftw-(parent|child):($R|$C) \[120\] [SR] ==> [^ ]+:[0-9]+ \[[0-9]+\]"
	chk wakeup "sched_wakeup: +ftw-(child|parent):($C|$R) \[120\]"
	chk exec "sched_process_exec: +filename=/vm/bin/ftring_workload pid=$C old_pid=$C\$"
	chk exit "sched_process_exit: +comm=ftring_workload pid=$C prio=120\$"
	# lseek's number on the guest's architecture, as its workload printed it
	NR=$(sed -n 's/.*lseek=\([0-9]*\).*/\1/p' "$VM_DIR/workload.txt")
	chk sys_enter "sys_enter: +NR ${NR:-?} \((ffffffff|ffffffffffffffff), 1234, 0,"
	chk sys_exit "sys_exit: +NR ${NR:-?} = -9\$"
	chk irq "irq_handler_entry: +irq=[0-9]+ name=[^ ]+"
	chk softirq "softirq_entry: +vec=[0-9]+ \[action=[A-Z_]+\]"
fi
# A capture on the module's mono clock says so in TRACECLOCK (tracefs's own selection,
# local, is not what stamped the pages).
mono=$VM_DIR/kmod-mono.dat
if [ -s "$mono" ]; then
	t_eq report.traceclock-is-the-module-clock \
		"$(trace-cmd dump --options "$mono" 2>/dev/null | grep -A1 'Option TRACECLOCK' |
		   grep -o '\[[a-z_0-9-]*\]')" "[mono]"
else
	t_fail report.traceclock-is-the-module-clock "no kmod-mono.dat from the guest"
fi
# A reused pid is named as the live task it is, not by the kernel's stale entry.
dat=$VM_DIR/kmod-reused-pid.dat
if [ -s "$dat" ] && [ -s "$VM_DIR/reused-pid" ]; then
	p=$(cat "$VM_DIR/reused-pid")
	text=$(trace-cmd report "$dat" 2>/dev/null)
	t_eq report.reused-pid-no-stale-name "$(grep -c "ftw-stale" <<<"$text")" 0
	n=$(grep -cE "ftw-live-$p +\[" <<<"$text")
	if [ "$n" -gt 0 ]; then t_ok report.reused-pid-live-name
	else t_fail report.reused-pid-live-name "no event of ftw-live-$p in $dat"; fi
else
	t_fail report.reused-pid "no kmod-reused-pid.dat from the guest"
fi
# Markers are on with -s kmod whatever -e names (issue #13 item 10), unless "!marker".
for f in default excluded; do
	dat=$VM_DIR/kmod-marker-$f.dat
	if [ ! -s "$dat" ]; then
		t_fail "report.marker-$f" "no kmod-marker-$f.dat from the guest"
		continue
	fi
	n=$(trace-cmd report "$dat" 2>/dev/null | grep -cE 'marker: .*marker-(by-default|left-out)')
	if [ $f = default ]; then
		t_eq report.marker-on-by-default "$n" 1
	else
		t_eq report.marker-left-out "$n" 0
	fi
done
# KernelShark's own library reads the kmod file as the GUI does (issue #13 item 9):
# every entry named (IDs below 32768), fields and latency flags there, the sched plugin
# finding its events.
ks=$TOP/build/tests/kshark_check
if [ ! -x "$ks" ]; then
	t_fail kshark "build/tests/kshark_check missing (scripts/setup-deps; make)"
elif [ ! -s "$VM_DIR/kmod.dat" ]; then
	t_fail kshark "no kmod.dat from the guest"
else
	"$ks" "$VM_DIR/kmod.dat" >"$VM_DIR/kshark.txt" 2>&1
	t_eq kshark.exit "$?" 0
	kv() { awk -v k="$1" '$1 == k { print $2 }' "$VM_DIR/kshark.txt"; }
	t_eq kshark.unnamed "$(kv unnamed)" 0
	t_eq kshark.negative-ids "$(kv negative_ids)" 0
	t_eq kshark.no-info "$(kv no_info)" 0
	t_eq kshark.no-latency "$(kv no_latency)" 0
	t_eq kshark.sched-plugin-init "$(kv plugin_init)" 1
	for e in sched/sched_switch sched/sched_wakeup ftring/marker switches; do
		n=$(kv $e)
		if [ "${n:-0}" -gt 0 ]; then t_ok "kshark.$e"; else t_fail "kshark.$e" "none: $(tr '\n' ' ' <"$VM_DIR/kshark.txt")"; fi
	done
	n=$(kv tasks)
	if [ "${n:-0}" -ge 2 ]; then t_ok kshark.tasks; else t_fail kshark.tasks "$n tasks"; fi
fi
t_done
