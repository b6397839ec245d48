#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tiny run of tests/bench/insn_profile, the per-symbol instruction profile that
# explains the producer and marker figures: its qemu plugin loads and counts only in
# vm_pingpong's timed run, whose length vm_pingpong's own clock measures in the same
# units under -icount: the two totals must agree (within 2% and 3 units an event). The
# module's cost sits in its own symbols, and its split by the function of ours each
# instruction was inlined from must add up to them. Run again on 6.12 by
# tests/vm/090-kernel-6.12.sh.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if ! command -v qemu-system-x86_64 >/dev/null || [ ! -x "$TOP/build/vm/progs/vm_pingpong" ] ||
	[ ! -f "$TOP/build/bench/insn_profile.so" ]; then
	t_skip insn-profile "no qemu, vm_pingpong or the plugin (make)"
	t_done
fi
if [ ! -f "$VM_KO" ]; then
	t_skip insn-profile "kmod/ftring.ko not built"
	t_done
fi
vm_outdir insn-profile
out=$VM_DIR
FTRING_KO=$VM_KO "$TOP/tests/bench/insn_profile" -o "$out" -n 300 -k 60 pp_ftring wr_ftring \
	>"$out/report.out" 2>"$out/report.err"
t_eq insn-profile.run "$?" 0
sed 's/^/# /' "$out/report.out"

num='-?[0-9]+(\.[0-9]+)?'
# near A B REL ABS: A is a number within REL * B + ABS of B, and B > 0
near() {
	awk -v a="$1" -v b="$2" -v r="$3" -v k="$4" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b > 0 && d <= r * b + k) }'
}
for m in pp_ftring wr_ftring; do
	# the mode's section: from its "==" line to the next mode's
	sec=$(awk -v m="$m" '/^== / { on = ($2 == m ":") } on' "$out/report.out")
	t_check "insn-profile.$m.window" grep -qE "^== $m: [1-9][0-9.]* events in 1 timed run\(s\), kernel " <<<"$sec"
	# the kernel the guest ran (VM_KVER's, when set)
	t_check "insn-profile.$m.kernel" grep -qF ", kernel ${VM_KVER:-6.1.}" <<<"$(head -n 1 <<<"$sec")"
	total=$(sed -nE "s/^ *($num)  total\$/\1/p" <<<"$sec")
	timing=$(sed -nE "s/^ *($num)  vm_pingpong timing:.*/\1/p" <<<"$sec")
	t_check "insn-profile.$m.agrees" near "$total" "$timing" 0.02 3
	# the tracer's own code is the biggest symbol the profile finds
	first=$(awk '/  total$/ { getline; print; exit }' <<<"$sec")
	case $m in
	pp_*) want='probe_sched_(switch|wakeup) \[ftring\]' ;;
	*) want='ftring_marker_write \[ftring\]' ;;
	esac
	t_check "insn-profile.$m.top" grep -qE "^ *$num  $want\$" <<<"$first"
	t_check "insn-profile.$m.inlined" grep -qE "^ *[1-9][0-9]*(\.[0-9]+)?  rb_reserve\$" <<<"$sec"
	# the split (every line of it: -k below is larger than its length) sums to the module
	module=$(sed -nE "s/^ *($num)  module \[ftring\], all its symbols\$/\1/p" <<<"$sec")
	split=$(awk '/the function of ours inlined there$/ { on = 1; next } on { s += $1 }
		END { print s + 0 }' <<<"$sec")
	t_check "insn-profile.$m.split-sums" near "$split" "$module" 0.01 1
done
t_done
