# SPDX-License-Identifier: GPL-2.0
# Guest side of the VM tests (busybox sh). Each check appends one line to
# $VM_OUT/results, which the host test (tests/vm/lib.sh: vm_test) turns into TAP:
#   ok NAME | fail NAME: WHY | skip NAME: WHY
# Source it from a guest script: . /vm/guest/lib.sh
G_RES=${VM_OUT:-/out}/results
G_DMESG_MARK=0
: >>"$G_RES"

g_ok()   { echo "ok $1" >>"$G_RES"; echo "guest: ok $1"; }
g_fail() { echo "fail $1: $2" | tr '\n' ' ' >>"$G_RES"; echo >>"$G_RES"; echo "guest: FAIL $1: $2"; }
g_skip() { echo "skip $1: $2" >>"$G_RES"; echo "guest: skip $1: $2"; }
# g_check NAME CMD...: passes when CMD exits 0 (its output is shown on failure).
g_check() {
	_n=$1; shift
	if _o=$("$@" 2>&1); then g_ok "$_n"; else g_fail "$_n" "'$*' failed: $(echo "$_o" | tail -n 3)"; fi
}
# g_eq NAME GOT WANT
g_eq() { if [ "$2" = "$3" ]; then g_ok "$1"; else g_fail "$1" "got '$2', want '$3'"; fi; }

# g_kselftest PREFIX PROG [ARGS]: runs a kselftest binary and records each of its TAP
# results as PREFIX.NAME; its whole output goes to $VM_OUT/PREFIX.log and the console.
g_kselftest() {
	_p=$1; shift
	_log=${VM_OUT:-/out}/$_p.log
	"$@" >"$_log" 2>&1
	_rc=$?
	sed "s/^/  | /" "$_log"
	# (The 6.1 harness prints skips as "ok N # SKIP why": the name is in the RUN line.)
	awk -v p="$_p" '
		/^# +RUN +/ { run = $3 }
		/^ok [0-9]+ .*# SKIP/ { sub(/^ok [0-9]+ /, ""); n = $0; sub(/ *# SKIP.*/, "", n);
			if (n == "") n = run;
			r = $0; sub(/.*# SKIP */, "", r); print "skip " p "." n ": " r; t++; next }
		/^ok [0-9]+ / { sub(/^ok [0-9]+ /, ""); print "ok " p "." $0; t++; next }
		/^not ok [0-9]+ / { sub(/^not ok [0-9]+ /, ""); print "fail " p "." $0 ": see " p ".log"; t++ }
		END { if (!t) print "fail " p ": no TAP results (see " p ".log)" }' "$_log" >>"$G_RES"
	if [ "$_rc" != 0 ] && ! grep -q '^not ok' "$_log"; then
		g_fail "$_p.exit" "exited $_rc"
	fi
}

# Kernel complaints that must never appear (the unsigned-module taint line is expected).
G_BAD='WARNING:|BUG:|kernel BUG|Oops|general protection|KASAN|UBSAN|Call Trace|RIP: |soft lockup|hard LOCKUP|detected stalls|hung_task|blocked for more than|scheduling while atomic|sleeping function called|list_(add|del) corruption|refcount_t: '

g_dmesg_mark() { G_DMESG_MARK=$(dmesg | wc -l); }
# g_dmesg_expect_from, then g_dmesg_expect_to: the kernel lines between were caused on
# purpose (a load made to fail): the host's whole-dmesg check (vm_test) leaves them out.
# By line number: the kernel's log must not wrap before the script ends (it is small).
g_dmesg_expect_from() { G_EXPECT_FROM=$(($(dmesg | wc -l) + 1)); }
g_dmesg_expect_to() {
	_to=$(dmesg | wc -l)
	[ "$_to" -ge "$G_EXPECT_FROM" ] && echo "$G_EXPECT_FROM,${_to}d" >>"$VM_OUT/dmesg-expected.sed"
	g_dmesg_mark
}
# g_dmesg_clean NAME: no kernel complaint since the last g_dmesg_mark.
g_dmesg_clean() {
	_bad=$(dmesg | tail -n +"$((G_DMESG_MARK + 1))" | grep -E "$G_BAD" | head -n 5)
	if [ -z "$_bad" ]; then g_ok "$1"; else g_fail "$1" "dmesg: $_bad"; fi
	g_dmesg_mark
}

# g_cpus: the online CPU ids, one per line.
g_cpus() {
	for _c in /sys/devices/system/cpu/cpu[0-9]*; do
		_id=${_c##*/cpu}
		if [ ! -f "$_c/online" ] || [ "$(cat "$_c/online")" = 1 ]; then echo "$_id"; fi
	done | sort -n
}

# ftring_flood's reader pause (-r, us): long enough for its 4-sub-buffer ring to
# overflow, which the accounting checks need. An arm64 TCG guest writes about 5000
# markers a second per CPU, too few to outrun a reader pausing 2 ms as on x86-64.
# FLOOD_CROWD_US: the period of a crowd of tickers (-p), long enough for all of them
# to be back asleep when the next burst comes; an arm64 TCG vCPU takes longer than
# 10 ms to run 128 woken threads and the writer.
case $(uname -m) in
aarch64) FLOOD_READER_US=20000 FLOOD_CROWD_US=50000 ;;
*) FLOOD_READER_US=2000 FLOOD_CROWD_US=10000 ;;
esac
