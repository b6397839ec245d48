# Shell side of the test harness: kselftest-style TAP lines and a "# Totals:" line that
# tests/run adds up. Source it, call t_* per case, end with t_done.
#   t_ok NAME            a passed case
#   t_fail NAME WHY      a failed case
#   t_skip NAME WHY      a skipped case (say why: no tracefs, not root, ...)
#   t_check NAME CMD...  runs CMD; passes on exit 0
#   t_eq NAME GOT WANT   passes when the two strings are equal
_t_n=0 _t_pass=0 _t_fail=0 _t_skip=0
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RECORDERD=${RECORDERD:-$TOP/build/recorderd}

t_ok()   { _t_n=$((_t_n + 1)); _t_pass=$((_t_pass + 1)); echo "ok $_t_n $1"; }
t_fail() { _t_n=$((_t_n + 1)); _t_fail=$((_t_fail + 1)); echo "not ok $_t_n $1"; echo "# FAIL $1: $2"; }
t_skip() { _t_n=$((_t_n + 1)); _t_skip=$((_t_skip + 1)); echo "ok $_t_n $1 # SKIP $2"; }
t_check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then t_ok "$name"; else t_fail "$name" "'$*' failed: $(tail -n 3 <<<"$out")"; fi
}
t_eq() {
	if [ "$2" == "$3" ]; then t_ok "$1"; else t_fail "$1" "got '$2', want '$3'"; fi
}
t_done() {
	echo "# Totals: pass:$_t_pass fail:$_t_fail xfail:0 xpass:0 skip:$_t_skip error:0"
	[ "$_t_fail" -eq 0 ]
	exit
}
