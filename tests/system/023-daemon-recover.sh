#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# recorderd recover on files a crash can leave (host tracefs, own instance): a file cut
# by kill -9 mid-capture (valid: nothing to do), the same file with its options
# pointer lost and with its tail cut off (as a crash inside the writer's finish can
# leave it): recover must rebuild the tail from the chunk streams, keep every marker
# of every CPU on its CPU, keep the file's mode and owner, and report what it did;
# --check must not write.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

recd_setup 023
ncpu=$(nproc)
cpus=(0); [ "$ncpu" -gt 1 ] && cpus=(0 1)

recd_start -O period_ms=50 -O sync_ms=100 >/dev/null
pid=$(recd_pid)
for c in "${cpus[@]}"; do
	taskset -c "$c" bash -c "for ((i = 1; i <= 3000; i++)); do echo \"c$c \$i\"; done" \
		>"$TRACEFS/instances/$INST/trace_marker"
done
sleep 1
kill -9 "$pid"
for ((i = 0; i < 50; i++)); do gone "$pid" && break; sleep 0.05; done
f=$(ls "$OUT"/*.dat)

# What the killed file holds: per CPU, markers 1..R_c, on CPU c.
report_to "$f" "$TMP/rep0" || t_fail "killed file reads" "$(head -c 200 "$TMP/rep0.err")"
declare -A want
for c in "${cpus[@]}"; do
	want[$c]=$(grep -c "\[00$c\].*tracing_mark_write: c$c " "$TMP/rep0")
	t_check "killed file: CPU$c holds markers (${want[$c]})" test "${want[$c]}" -gt 1000
done
out=$("$RECORDERD" recover "$f"); rc=$?
# (or, when the host kept the compression threads from running for a sync, valid with
# chunks stored uncompressed, which recover compresses and exits 1: tests/system/016)
t_eq "valid file: recover exits 0" "$rc" "$([[ $out == *"nothing to do" ]] && echo 0 || echo 1)"
t_check "valid file: says so" \
	grep -qE ": (valid, [0-9]* events; nothing to do|repaired \(chunks stored uncompressed by a sync compressed\).*)$" <<<"$out"

# Where the header keeps the options offset (formats.md A.2).
optptr() {
	"$PY" - "$1" <<'EOF'
import sys
h = open(sys.argv[1], "rb").read(64)
i = 18 + h[18:].index(b"\0") + 1
i = i + h[i:].index(b"\0") + 1
print(i)
EOF
}
at=$(optptr "$f")

check_rebuilt() {
	local name=$1 g=$2 c out rc
	out=$("$RECORDERD" recover --check "$g"); rc=$?
	t_eq "$name: --check says repairable (exit 1)" "$rc" 1
	t_check "$name: --check does not write" cmp -s "$g" "$g.orig"
	# (the daemon's files are 0640 with its group: the repaired one must be too)
	chmod 0640 "$g"
	chown 65534:4 "$g"
	out=$("$RECORDERD" recover "$g"); rc=$?
	t_eq "$name: recover exits 1 (repaired)" "$rc" 1
	t_check "$name: says the tail was rebuilt" grep -q "repaired (tail rebuilt from the chunk streams)" <<<"$out"
	t_eq "$name: keeps the file's mode, owner and group" "$(stat -c '%a %u %g' "$g")" "640 65534 4"
	if ! report_to "$g" "$TMP/rep"; then
		t_fail "$name: reads after recover" "$(head -c 200 "$TMP/rep.err")"
		return
	fi
	for c in "${cpus[@]}"; do
		t_eq "$name: CPU$c markers 1..${want[$c]} on CPU$c" \
			"$(grep "\[00$c\].*tracing_mark_write: c$c " "$TMP/rep" | grep -o "c$c [0-9]*" | awk '{print $2}' | md5sum)" \
			"$(seq 1 "${want[$c]}" | md5sum)"
	done
	out=$("$RECORDERD" recover "$g")
	t_check "$name: a second recover finds it valid" grep -q "nothing to do" <<<"$out"
}

# 1. the options offset in the header is lost (zeroed)
g=$TMP/noptr.dat
cp --sparse=always "$f" "$g"
printf '\0\0\0\0\0\0\0\0' | dd of="$g" bs=1 seek="$at" conv=notrunc status=none
cp --sparse=always "$g" "$g.orig"
t_check "no options offset: report prints no events" \
	test "$(trace-cmd report -i "$g" 2>/dev/null | grep -c tracing_mark_write)" = 0
check_rebuilt "no options offset" "$g"

# 2. the file is cut just past the start of its tail (OPTIONS torn)
g=$TMP/cut.dat
cp --sparse=always "$f" "$g"
tail_off=$("$PY" -c "import struct,sys; f=open(sys.argv[1],'rb'); f.seek($at); print(struct.unpack('<Q', f.read(8))[0])" "$g")
truncate -s $((tail_off + 40)) "$g"
cp --sparse=always "$g" "$g.orig"
check_rebuilt "tail cut off" "$g"

# 3. files written by trace-cmd itself: valid, untouched
for fx in /work/shared/fixtures/*.dat "$TOP"/tests/data/*.dat; do
	[ -f "$fx" ] || continue
	cp "$fx" "$TMP/fx.dat"
	out=$("$RECORDERD" recover "$TMP/fx.dat" 2>&1); rc=$?
	t_eq "$(basename "$fx"): valid (exit 0)" "$rc" 0
	t_check "$(basename "$fx"): untouched" cmp -s "$fx" "$TMP/fx.dat"
done

# 4. an empty file and a cut header: nothing to save, said so
: >"$TMP/empty.dat"
out=$("$RECORDERD" recover "$TMP/empty.dat" 2>&1); rc=$?
t_eq "empty: exit 4" "$rc" 4
t_check "empty: says so" grep -q "no complete header: nothing to save" <<<"$out"

# 5. not a trace.dat at all: a clear error, nothing written
head -c 4096 /dev/urandom >"$TMP/junk.dat"
cp "$TMP/junk.dat" "$TMP/junk.orig"
out=$("$RECORDERD" recover "$TMP/junk.dat" 2>&1); rc=$?
t_eq "junk: exit 4 (cannot repair)" "$rc" 4
t_check "junk: says why" grep -q "not a trace.dat version 7" <<<"$out"
t_check "junk: untouched" cmp -s "$TMP/junk.dat" "$TMP/junk.orig"
t_done
