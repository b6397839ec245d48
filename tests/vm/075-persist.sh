#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The trace that survives a kernel panic (tests/vm/guest/persist.sh): a 2-vCPU guest
# with memmap=16M$256M records into ftring's persistent rings, crashes, reboots (same
# qemu, RAM kept) and writes the crashed boot's trace with `recorderd lastboot`.
#   sysrq          sysrq-c; the readout must hold the last marker written before the
#                  crash and every marker before it in order as far back as the ring
#                  reaches, sched events with task names, and boot 1's kallsyms
#   hung-corrupt   a hung task panics (hung_task_panic); before boot 2 loads the
#                  module, 5 sub-buffers of CPU 0 are damaged: exactly those are
#                  dropped (and counted), the rest comes back
#   upstream       (6.12+) ftring's region by reserve_mem LABEL, and the same markers
#                  in upstream's persistent instance boot_map: what each kept
# In each, before boot 2's load, a load failing late (tests/vm/squat holds a device
# name) must leave the trace in the region. PERSIST_MODES picks some of the modes.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if [ ! -f "$VM_KO" ]; then
	t_skip persist "kmod/ftring.ko not built (make module)"
	t_done
fi
for t in trace-cmd mkfs.ext4; do
	command -v $t >/dev/null || { t_skip persist "no $t on the host"; t_done; }
done
[ -x "$VM_BDIR/recorderd" ] || { t_fail persist "build/recorderd missing"; t_done; }

modes="sysrq hung-corrupt"
# upstream's persistent instance and reserve_mem= exist from 6.12 on
case ${VM_KVER:-} in 6.1[2-9]*|6.[2-9][0-9]*|[7-9].*) modes="$modes upstream" ;; esac
modes=${PERSIST_MODES:-$modes}
for mode in $modes; do
	img=$(mktemp "$TOP/build/vm/persist-disk.XXXXXX")
	truncate -s 16M "$img"
	mkfs.ext4 -q -F "$img"
	app='memmap=16M$0x10000000' arg=16M@0x10000000
	if [ "$mode" = upstream ]; then
		# ours by label; nokaslr: a moved kernel could move a reserve_mem region
		app='reserve_mem=16M:4096:ftring nokaslr memmap=16M$0x12000000 trace_instance=boot_map@0x12000000:16M'
		arg=ftring
	fi
	VM_APPEND=$app VM_QEMU_ARGS="-drive file=$img,if=virtio,format=raw" \
		vm_test "persist-$mode" --reboot -c 2 -t 900 -- "$TOP/tests/vm/guest/persist.sh" \
		"$mode" "$arg"
	rm -f "$img"
	d=$VM_DIR n=persist-$mode
	[ -s "$d/last.dat" ] || { t_fail "$n.file" "no last.dat"; continue; }
	trace-cmd report "$d/last.dat" >"$d/report.txt" 2>"$d/report.err"
	t_check "$n.report" test $? -eq 0 -a ! -s "$d/report.err"
	# CPU 0's markers, in file order
	grep -E '^ *[^ ].* \[000\] .* marker: +(pre [0-9]+|last-before-crash 1)$' "$d/report.txt" |
		sed -E 's/.*marker: +//' >"$d/cpu0-markers.txt"
	t_check "$n.last-marker" test "$(tail -n 1 "$d/cpu0-markers.txt")" = "last-before-crash 1"
	t_check "$n.newest-pre" test "$(grep '^pre' "$d/cpu0-markers.txt" | tail -n 1)" = "pre $(cat "$d/written.txt")"
	grep '^pre' "$d/cpu0-markers.txt" | awk '{ print $2 }' >"$d/cpu0-seqs.txt"
	first=$(head -n 1 "$d/cpu0-seqs.txt") last=$(tail -n 1 "$d/cpu0-seqs.txt")
	cnt=$(wc -l <"$d/cpu0-seqs.txt")
	echo "$n: CPU 0 markers pre $first..$last: $cnt in the file" >&2
	# ascending, and how many are missing between the first and the last
	t_check "$n.in-order" sort -n -c "$d/cpu0-seqs.txt"
	missing=$((last - first + 1 - cnt))
	# far back: the ring holds thousands of markers
	t_check "$n.history" test "$cnt" -gt 20000
	if [ "$mode" != hung-corrupt ]; then
		t_check "$n.no-gap" test "$missing" -eq 0
	else
		# the damaged sub-buffers took one or two runs of markers, no more
		gaps=$(awk 'NR > 1 && $1 != prev + 1 { g++ } { prev = $1 } END { print g + 0 }' "$d/cpu0-seqs.txt")
		t_check "$n.gap" test "$missing" -gt 0 -a "$missing" -le $((130 * 5)) -a "$gaps" -le 2
		t_check "$n.dropped-counted" grep -q "sealed at a panic): [0-9]* sub-buffers kept, 5 dropped" "$d/boot2-persist.txt"
		t_check "$n.dropped-said" grep -q ", 5 sub-buffers dropped" "$d/lastboot.txt"
	fi
	t_check "$n.cpu1-markers" grep -q '\[001\] .* marker: *cpu1 2000$' "$d/report.txt"
	t_check "$n.sched" grep -q 'sched_switch: ' "$d/report.txt"
	# the panic's own message, traced (printk:console) before the seal
	case $mode in
	hung-corrupt) want='Kernel panic - not syncing: hung_task: blocked tasks' ;;
	*) want='Kernel panic - not syncing: sysrq triggered crash' ;;
	esac
	t_check "$n.panic-message" grep -q "console: *$want" "$d/report.txt"
	# task names from the pages: the marker writer by name, not <...>
	t_check "$n.task-names" grep -q '^ *ftring_markers-[0-9]* .*marker: *pre ' "$d/report.txt"
	# boot 1's symbols, not boot 2's (KASLR moves them)
	sym1=$(awk '{ print $1 }' "$d/boot1-sym.txt")
	trace-cmd report -f "$d/last.dat" 2>/dev/null | grep -iE "^ *0*${sym1#0*} .*schedule$" >"$d/sym-in-file.txt"
	t_check "$n.kallsyms-boot1" test -s "$d/sym-in-file.txt"
	id1=$(cat "$d/boot1-id.txt")
	# LAST_BOOT_INFO (24): trace-cmd 3.1.6 skips it; its text names boot 1
	t_check "$n.last-boot-info" sh -c "trace-cmd dump --options '$d/last.dat' 2>&1 | grep -qE '^ *24 [0-9]+.*Unknown option'"
	t_check "$n.last-boot-info-text" grep -qa "ftring:# boot_id: $id1" "$d/last.dat"
	dfile=$d/d2/lastboot-$id1.dat
	t_check "$n.daemon-file" sh -c "trace-cmd report '$dfile' 2>/dev/null | grep -q 'marker: *last-before-crash 1'"
	echo "$n: $(head -n 1 "$d/lastboot.txt"); module load to file $(cat "$d/lastboot-ms.txt") ms" >&2
	if [ "$mode" = upstream ]; then
		# the same markers went to upstream's boot_map instance: what did it keep?
		trace-cmd report "$d/upstream.dat" >"$d/upstream-report.txt" 2>/dev/null
		up=$(grep -cE 'print: .*(pre [0-9]+|last-before-crash 1)$' "$d/upstream-report.txt")
		t_check "$n.upstream-read" test -s "$d/upstream.dat"
		echo "$n: after the same crash: ftring kept $cnt of CPU 0's $(cat "$d/written.txt") markers; upstream's persistent instance kept $up (of the same sequence)" >&2
		echo "ftring=$cnt upstream=$up" >"$d/compare.txt"
	fi
done
t_done
