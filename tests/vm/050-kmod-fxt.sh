#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# FXT from user space through the module, in a 2-vCPU guest
# (tests/vm/guest/kmod-fxt.sh): the /dev/ftring/fxt kselftest (every record kind
# stored byte for byte; malformed writes refused with EINVAL, nothing stored), then a
# `recorderd record -s kmod` capture of `ftring_fxt_test emit`, checked here on the
# host: `trace-cmd report` decodes every ftring/fxt event, and `recorderd export --fxt`
# puts each user record in the archive, re-stamped and attributed to the writer.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

DUMP=$TOP/build/tests/fxt_dump
if [ ! -f "$VM_KO" ]; then
	t_skip kmod-fxt "kmod/ftring.ko not built (make module)"
	t_done
fi
for p in "$VM_BDIR/vm/progs/ftring_fxt_test" "$RECORDERD" "$DUMP"; do
	[ -x "$p" ] || { t_fail kmod-fxt "$p missing (make)"; t_done; }
done
vm_test kmod-fxt -c 2 -t 600 -- "$TOP/tests/vm/guest/kmod-fxt.sh"

dat=$VM_DIR/fxt.dat
emit=$(cat "$VM_DIR/emit.txt" 2>/dev/null)
if [ ! -s "$dat" ] || [ -z "$emit" ]; then
	t_skip report "no fxt.dat from the guest"
	t_done
fi
pid=$(sed -n 's/.*pid=\([0-9]*\).*/\1/p' <<<"$emit")
tid=$(sed -n 's/.* tid=\([0-9]*\).*/\1/p' <<<"$emit")
writes=$(sed -n 's/.*writes=\([0-9]*\).*/\1/p' <<<"$emit")
echo "# guest: $emit"

# trace-cmd report (the reader of truth) decodes the events: pid, length, the bytes.
rep=$VM_DIR/fxt-report.txt
trace-cmd report "$dat" >"$rep" 2>"$VM_DIR/fxt-report.err"
t_eq report.exit "$?" 0
t_eq report.no-unknown-events "$(grep -c 'UNKNOWN EVENT\|\[FAILED TO PARSE\]' "$rep")" 0
# (the first byte's low nibble is the record type: 4, an event record)
t_eq report.fxt-events "$(grep -cE " fxt: +pid=$pid len=[0-9]+ [0-9a-f]4( [0-9a-f]{2}){7} " "$rep")" \
	"$writes"
t_eq report.fxt-writer "$(grep -E ' fxt: ' "$rep" | grep -cE -- "-$tid +\[")" "$writes"
n=$(grep -c ' sched_switch: ' "$rep")
if [ "$n" -gt 0 ]; then t_ok report.sched-beside; else t_fail report.sched-beside "no sched_switch"; fi

# The export carries each user record once, stamped within the capture and given the
# writer's process and thread (the emitter left them zero).
fxt=$VM_DIR/fxt.fxt
if ! msg=$("$RECORDERD" export --fxt "$dat" "$fxt" 2>&1); then
	t_fail export "$msg"
	t_done
fi
t_ok export
echo "# $msg"
if ! sum=$("$DUMP" -o -v "$fxt" 2>&1); then
	t_fail export.strict-decode "$(tail -n 2 <<<"$sum")"
	t_done
fi
t_ok export.strict-decode
user=$(grep -E ' fxt-test/fxt-| /fxt-nocat' <<<"$sum")
sed 's/^/# /' <<<"$user"
t_eq export.user-records "$(wc -l <<<"$user")" "$writes"
t_eq export.attributed "$(grep -c " pid $pid tid $tid " <<<"$user")" "$writes"
# sub = FXT event type: one of each kind the emitter wrote (common/fxt.h)
want="0 fxt-test/fxt-instant
1 fxt-test/fxt-counter
2 fxt-test/fxt-slice
3 fxt-test/fxt-slice
4 fxt-test/fxt-complete
5 fxt-test/fxt-async
6 fxt-test/fxt-async
7 fxt-test/fxt-async
8 fxt-test/fxt-flow
9 fxt-test/fxt-flow
10 fxt-test/fxt-flow
0 /fxt-nocat"
t_eq export.kinds "$(awk '{ for (i = 1; i < NF; i++) if ($i == "sub") s = $(i + 1);
	for (i = 1; i <= NF; i++) if ($i ~ /fxt-/) n = $i; print s, n }' <<<"$user")" "$want"
if grep -q "str='hello from user space'.*koid=42 bool=1" <<<"$user"; then
	t_ok export.args
else
	t_fail export.args "the instant's arguments are not in the export"
fi
# re-stamped: inside the capture, not the emitter's small made-up times
first=$(trace-cmd report -t "$dat" 2>/dev/null | grep -m1 -oE '[0-9]+\.[0-9]{9}:' | tr -d '.:')
bad=$(awk -v f="$first" '{ for (i = 1; i < NF; i++) if ($i == "ts") t = $(i + 1);
	if (t + 0 < f + 0) n++ } END { print n + 0 }' <<<"$user")
t_eq export.restamped "$bad" 0
t_done
