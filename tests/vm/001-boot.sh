#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM harness itself: a 2-vCPU boot runs a guest script with arguments, files come
# back through 9p and the script's exit status becomes tests/vm/run's; a 1-vCPU icount
# boot works; a guest that outlives -t is killed and reported as a timeout.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

export VM_APPEND=
kver=$(ls -d /lib/modules/*-amd64 2>/dev/null | sort -V | tail -n 1)
if ! command -v qemu-system-x86_64 >/dev/null || [ -z "$kver" ]; then
	t_skip boot "no qemu-system-x86_64 or Debian kernel (make setup)"
	t_done
fi

VM_EXPECT_RC=7 vm_test boot -c 2 -- "$TOP/tests/vm/guest/boot.sh" one "two words"
t_eq boot.exit-status "$?" 7
t_eq boot.9p-file "$(cat "$VM_DIR/payload.txt" 2>/dev/null)" "payload-2"

VM_EXPECT_RC=7 vm_test icount -c 1 --icount -- "$TOP/tests/vm/guest/boot.sh" one "two words"
t_eq icount.exit-status "$?" 7
t_eq icount.9p-file "$(cat "$VM_DIR/payload.txt" 2>/dev/null)" "payload-1"

cat >"$TOP/build/vm/sleep.sh" <<'G'
#!/bin/sh
sleep 600
G
out=$("$VM_RUN" -t 4 "$TOP/build/vm/sleep.sh" 2>&1)
rc=$?
t_eq timeout.exit-status "$rc" 124
t_check timeout.message grep -q 'TIMEOUT after 4s' <<<"$out"
t_done
