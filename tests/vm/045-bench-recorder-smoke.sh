#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tiny run of the in-guest benchmarks as `make bench` runs them (tests/bench/vm_bench
# --smoke: one -smp 1 icount boot with Debian's trace-cmd in the guest, the producer
# part then the recorder part): every figure of the recorder cost table, of the loss
# curve and of the whole-stack table is produced and is a plausible number, and the
# producer part's rows are there too (tests/vm/040-bench-smoke.sh checks that part in
# detail). Not timed, no threshold on the figures themselves.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if ! command -v qemu-system-x86_64 >/dev/null || ! command -v trace-cmd >/dev/null ||
	[ ! -x "$TOP/build/vm/progs/vm_load" ]; then
	t_skip bench-rec "no qemu, no trace-cmd or no build/vm/progs/vm_load (make)"
	t_done
fi
vm_outdir bench-rec
out=$VM_DIR
export BENCH_RESULTS=$out/results
unset BENCH_ROWS
rep=$("$TOP/tests/bench/vm_bench" --smoke -o "$out" 2>&1)
t_eq bench-rec.exit "$?" 0
echo "$rep" | sed 's/^/# /'
n='[0-9]+(\.[0-9]+)?'
recs="trace-cmd recorderd-splice"
[ -f "$VM_KO" ] && recs="$recs recorderd-kmod"
for r in $recs; do
	# pages MB, B/event, cpu, idle, net, net/GB, total/GB, data MB, file MB, lost
	# (at smoke sizes the net cost, ours minus idle, can come out below 0: noise)
	t_check "bench-rec.cost.$r" grep -qE \
		"^  $r +$n +$n +$n +$n +-?$n +-?$n +$n +$n +$n +-?[0-9]+\$" <<<"$rep"
	t_eq "bench-rec.loss.$r" "$(grep -cE "^  $r +[0-9]+ +[0-9]+ +[0-9]+ +-?[0-9]+\$" <<<"$rep")" 2
	t_eq "bench-rec.csv.$r" "$(grep -cE "^$r,[0-9]+,[0-9]+,-?[0-9]+\$" \
		"$BENCH_RESULTS/loss_curve.csv" 2>/dev/null)" 2
done
# pages were recorded, and every recorder exited 0
t_check bench-rec.pages-recorded awk '$1 == "trace-cmd" && NF == 11 && $2 > 0 { ok = 1 }
	END { exit !ok }' <<<"$rep"
if grep -q ' exited ' <<<"$rep"; then
	t_fail bench-rec.recorders-exit "$(grep ' exited ' <<<"$rep")"
else
	t_ok bench-rec.recorders-exit
fi
srcs=splice
[ -f "$VM_KO" ] && srcs="splice kmod"
for s in $srcs; do
	for m in cpu_per_gb file_size lost cpu_per_mevent cpu_per_gb_total file_size_total \
		 idle_cpu; do
		t_check "bench-rec.row.$s.$m" grep -qE \
			"^  recorder\.$s\.$m +ours +-?$n +peer +-?$n +[a-zA-Z/-]+ +ratio +(-?$n|inf)" <<<"$rep"
	done
	t_check "bench-rec.row.$s.max_lossless_rate" grep -qE \
		"^  loss\.$s\.max_lossless_rate +ours +$n +peer +$n +events/s +ratio +($n|inf)" <<<"$rep"
done
if [ -f "$VM_KO" ]; then
	for m in producer.pingpong.cost_per_event producer.forkexec.cost_per_event \
		 marker.16.net_cost marker.128.net_cost marker.1024.net_cost; do
		t_check "bench-rec.row.$m" grep -qE "^  ${m//./\\.} +ours +-?$n +peer +-?$n " <<<"$rep"
	done
fi
# whole stack: both loads measured untraced and under both recorders, and both
# recorders' files hold sched events (a recorder that recorded nothing costs nothing)
for l in pingpong forkexec; do
	t_check "bench-rec.stack.$l" grep -qE \
		"^  $l +$n +$n +$n +-?$n +-?$n +-?$n +[0-9]+ +[0-9]+\$" <<<"$rep"
	t_check "bench-rec.stack.$l.events" awk -v l="$l" \
		'$1 == l && NF == 9 && $8 > 0 && $9 > 0 { ok = 1 } END { exit !ok }' <<<"$rep"
	t_check "bench-rec.row.stack.$l" grep -qE \
		"^  stack\.$l\.added_units +ours +-?$n +peer +-?$n +units/op +ratio " <<<"$rep"
done
# and the fork/exec loop under recorderd -C none (what compressing meanwhile costs)
t_check bench-rec.stack.forkexec.nocomp awk \
	'$1 == "fe.nocomp" && NF == 9 && $9 > 0 { ok = 1 } END { exit !ok }' <<<"$rep"
t_check bench-rec.row.stack.forkexec.nocomp grep -qE \
	"^  stack\.forkexec\.nocomp\.added_units +ours +-?$n +peer +-?$n +units/op +ratio " <<<"$rep"
t_eq bench-rec.csv-header "$(head -n 1 "$BENCH_RESULTS/loss_curve.csv" 2>/dev/null)" \
	recorder,rate,written,lost
if [ -f "$out/dmesg.txt" ]; then
	bad=$(grep -E "$VM_DMESG_BAD" "$out/dmesg.txt" | head -n 3)
	if [ -z "$bad" ]; then t_ok bench-rec.dmesg; else t_fail bench-rec.dmesg "$bad"; fi
fi
t_done
