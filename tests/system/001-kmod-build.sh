#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ftring module builds warning-free against the kernel headers (`make module`,
# `make module-6.12` for Debian 12's 6.12 kernel, `make arm64` for Debian's arm64 6.1),
# and the module sources pass checkpatch --strict. Rule types are waived only where
# the file's purpose requires them, each with its reason (scripts/checkpatch).
. "$(dirname "$0")/../lib/tap.sh"
cd "$TOP" || exit 1

kdir=${KDIR:-$(scripts/kdir)}
if [ ! -d "$kdir" ]; then
	t_skip kmod-build "no kernel headers at $kdir"
else
	log=$(mktemp)
	if make -s module KDIR="$kdir" >"$log" 2>&1; then
		t_ok kmod-build
		t_check kmod-build.ko test -f kmod/ftring.ko
		warn=$(grep -E 'warning:|error:|undefined!' "$log" | head -n 3)
		t_eq kmod-build.no-warnings "$warn" ""
		t_check kmod-build.modinfo sh -c "modinfo kmod/ftring.ko | grep -q '^license: *GPL'"
	else
		t_fail kmod-build "make module failed: $(tail -n 5 "$log")"
	fi
	# A probe whose prototype no longer matches its tracepoint's TP_PROTO must fail the
	# build (kmod/probes.c ftring_probe_types()), not be called with wrong arguments:
	# a copy of the sources with softirq_entry's argument widened.
	pd=$TOP/build/kmod-proto
	rm -rf "$pd" && scripts/install --module-sources "$pd"
	sed -i 's/^static void probe_softirq_entry(void \*data, unsigned int vec)$/static void probe_softirq_entry(void *data, unsigned long vec)/' \
		"$pd/kmod/probes.c"
	if ! grep -q 'probe_softirq_entry(void \*data, unsigned long vec)' "$pd/kmod/probes.c"; then
		t_fail kmod-build.probe-prototype-checked "could not change the probe in the copy"
	elif make -s -C "$kdir" M="$pd" modules >"$log" 2>&1; then
		t_fail kmod-build.probe-prototype-checked "a wrong probe prototype built"
	else
		t_check kmod-build.probe-prototype-checked grep -q 'incompatible.pointer.type' "$log"
	fi
	rm -rf "$pd"
	# A big-endian kernel would get unreadable pages: the build must refuse it, with
	# a reason (the flag plays a big-endian kernel's config for the preprocessor).
	make -s -C "$kdir" M="$TOP" KCFLAGS=-DCONFIG_CPU_BIG_ENDIAN kmod/rb_alloc.o \
		>"$log" 2>&1
	t_check kmod-build.big-endian-refused \
		grep -q 'error: #error "ftring: big-endian kernels are not supported' "$log"
	rm -f "$log" kmod/rb_alloc.o kmod/.rb_alloc.o.cmd
fi

# The same module for Debian 12's 6.12 kernel: warning-free too (version differences
# live in kmod/compat.h only).
kdir612=$(scripts/kdir 6.12)
if [ ! -d "$kdir612" ]; then
	t_fail kmod-build-6.12 "no 6.12 kernel headers (scripts/setup-deps installs them)"
else
	log=$(mktemp)
	if make -s module-6.12 >"$log" 2>&1; then
		t_ok kmod-build-6.12
		t_eq kmod-build-6.12.no-warnings "$(grep -E 'warning:|error:|undefined!' "$log" | head -n 3)" ""
		t_eq kmod-build-6.12.vermagic \
			"$(modinfo -F vermagic build/kmod-6.12/kmod/ftring.ko | cut -d' ' -f1)" \
			"${kdir612#/usr/src/linux-headers-}"
	else
		t_fail kmod-build-6.12 "make module-6.12 failed: $(tail -n 5 "$log")"
	fi
	rm -f "$log"
fi

# arm64 (`make arm64`): the module against Debian's arm64 6.1 headers and recorderd
# against the arm64 libraries, cross-built warning-free too.
# From scratch, so that a warning cannot hide behind an up-to-date object.
log=$(mktemp)
rm -rf build/arm64/kmod build/arm64/recorder
if make -s arm64 >"$log" 2>&1; then
	t_ok kmod-build-arm64
	t_eq kmod-build-arm64.no-warnings "$(grep -E 'warning:|error:|undefined!' "$log" | head -n 3)" ""
	t_eq kmod-build-arm64.vermagic \
		"$(modinfo -F vermagic build/arm64/kmod/kmod/ftring.ko | cut -d' ' -f1 | sed 's/.*-//')" arm64
	t_eq kmod-build-arm64.recorderd-machine \
		"$(readelf -h build/arm64/recorderd | awk '/Machine:/ { print $2 }')" AArch64
else
	t_fail kmod-build-arm64 "make arm64 failed: $(tail -n 5 "$log")"
fi
rm -f "$log"

# checkpatch --strict, file by file, with scripts/checkpatch's waivers (and reasons)
[ -x build/ext/checkpatch/checkpatch.pl ] || { t_skip checkpatch "checkpatch.pl missing (make setup)"; t_done; }
for f in $(scripts/checkpatch --list); do
	if out=$(scripts/checkpatch "$f"); then t_ok "checkpatch.$f"; else
		t_fail "checkpatch.$f" "$(head -n 3 <<<"$out")"; fi
done
t_done
