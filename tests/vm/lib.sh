# SPDX-License-Identifier: GPL-2.0
# Host side of the VM tests: boots a guest script with tests/vm/run and turns the
# results it wrote (tests/vm/guest/lib.sh) into TAP through tests/lib/tap.sh.
# Source after tap.sh.
VM_RUN=$TOP/tests/vm/run
# VM_ARCH=arm64 (tests/vm/095-arm64.sh): the guest is arm64 and takes recorderd, its
# programs and the module from build/arm64/ (make arm64).
if [ "${VM_ARCH:-x86_64}" = arm64 ]; then
	VM_BDIR=$TOP/build/arm64
	VM_KO=${FTRING_KO:-$VM_BDIR/kmod/kmod/ftring.ko}
else
	VM_BDIR=$TOP/build
	VM_KO=${FTRING_KO:-$TOP/kmod/ftring.ko}
fi
# Kernel complaints that fail any VM test (the unsigned-module taint line is expected).
VM_DMESG_BAD='WARNING:|BUG:|kernel BUG|Oops|general protection|KASAN|UBSAN|Call Trace|RIP: |soft lockup|hard LOCKUP|detected stalls|hung_task|blocked for more than|scheduling while atomic|sleeping function called|list_(add|del) corruption|refcount_t: '

# vm_outdir NAME: sets VM_DIR to a fresh build/vm/out/NAME.PID (two runs of the same
# test in one tree must not share it) and removes those of runs that ended more than
# an hour ago.
vm_outdir() {
	local d pid
	for d in "$TOP/build/vm/out/$1".*; do
		[ -d "$d" ] || continue
		pid=${d##*.}
		[[ "$pid" =~ ^[0-9]+$ ]] && ! kill -0 "$pid" 2>/dev/null &&
			[ -n "$(find "$d" -maxdepth 0 -mmin +60)" ] && rm -rf "$d"
	done
	VM_DIR=$TOP/build/vm/out/$1.$$
	rm -rf "$VM_DIR"
	mkdir -p "$VM_DIR"
}

# vm_test NAME [run options] -- SCRIPT [ARGS]: boots, replays the guest's results as
# NAME.<check>, then checks the guest's whole dmesg. Leaves the output in $VM_DIR.
# The script must exit 0 (or $VM_EXPECT_RC); returns its exit status.
vm_test() {
	local name=$1 opts=() rc line res rest bad
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	vm_outdir "$name"
	"$VM_RUN" "${opts[@]}" -o "$VM_DIR" "$@"
	rc=$?
	if [ -f "$VM_DIR/results" ]; then
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			res=${line%% *}; rest=${line#* }
			case $res in
			ok) t_ok "$name.$rest" ;;
			fail) t_fail "$name.${rest%%:*}" "${rest#*: }" ;;
			skip) t_skip "$name.${rest%%:*}" "${rest#*: }" ;;
			*) t_fail "$name.results" "bad line '$line'" ;;
			esac
		done <"$VM_DIR/results"
	fi
	if [ "$rc" != "${VM_EXPECT_RC:-0}" ]; then
		t_fail "$name.boot" "guest script exited $rc (console: $VM_DIR/console.log)"
	fi
	if [ -f "$VM_DIR/dmesg.txt" ]; then
		# without the lines the script caused on purpose (g_dmesg_expect_to)
		bad=$(sed -f "$VM_DIR/dmesg-expected.sed" "$VM_DIR/dmesg.txt" 2>/dev/null ||
		      cat "$VM_DIR/dmesg.txt")
		bad=$(echo "$bad" | grep -E "$VM_DMESG_BAD" | head -n 3)
		if [ -z "$bad" ]; then t_ok "$name.dmesg"; else t_fail "$name.dmesg" "$bad"; fi
	fi
	return "$rc"
}

# vm_report NAME: trace-cmd report (the reader of truth) of $VM_DIR/NAME.dat into
# NAME-report.txt; passes NAME.report and returns 0 when it printed events and no
# complaint.
vm_report() {
	local dat=$VM_DIR/$1.dat rep=$VM_DIR/$1-report.txt
	[ -s "$dat" ] || { t_fail "$1.report" "no $1.dat from the guest"; return 1; }
	trace-cmd report "$dat" >"$rep" 2>"$rep.err"
	local rc=$?
	if [ $rc -ne 0 ] || grep -qiE 'error|warning|fail|truncat|bad|unknown' "$rep.err" ||
	   grep -q 'UNKNOWN EVENT\|\[FAILED TO PARSE\]' "$rep"; then
		t_fail "$1.report" "trace-cmd report exit $rc: $(head -n 3 "$rep.err" | tr '\n' ' ')"
		return 1
	fi
	t_ok "$1.report"
}
# vm_markers NAME TAG: the N of every "TAG N" marker in NAME's report, in file order.
vm_markers() {
	grep -oE "marker: +$2 [0-9]+\$" "$VM_DIR/$1-report.txt" | awk '{ print $3 }'
}

# vm_suite PREFIX TEST...: runs each tests/vm test script again (in the environment the
# caller set: another kernel, another architecture) and reports each of its cases as
# PREFIX.<test>.<case>; a script that reports nothing, or exits non-zero without a
# failed case, fails as PREFIX.<test>.
vm_suite() {
	local prefix=$1 t name out rc n line rest why
	shift
	for t in "$@"; do
		name=$(basename "$t" .sh)
		out=$("$t" 2>&1)
		rc=$?
		n=0
		while IFS= read -r line; do
			case $line in
			"ok "*"# SKIP"*)
				rest=${line#ok * }
				t_skip "$prefix.$name.${rest%% # SKIP*}" "${rest#* # SKIP }"; n=$((n + 1)) ;;
			"ok "*)
				rest=${line#ok * }; t_ok "$prefix.$name.$rest"; n=$((n + 1)) ;;
			"not ok "*)
				rest=${line#not ok * }
				why=$(grep -m1 -F "# FAIL $rest:" <<<"$out" | sed 's/^# FAIL [^:]*: //')
				t_fail "$prefix.$name.$rest" "${why:-see below}"; n=$((n + 1)) ;;
			esac
		done <<<"$out"
		if [ "$n" -eq 0 ] || { [ "$rc" -ne 0 ] && ! grep -q '^not ok' <<<"$out"; }; then
			t_fail "$prefix.$name" "exit $rc: $(tail -n 3 <<<"$out")"
		fi
		echo "# $prefix $name: exit $rc"
	done
}
