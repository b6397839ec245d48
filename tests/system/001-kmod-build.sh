#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ftring module builds warning-free against the kernel headers (`make module`,
# `make module-6.12` for Debian 12's 6.12 kernel, `make arm64` for Debian's arm64 6.1),
# and the module sources pass checkpatch --strict. Rule types are waived only where
# the file's purpose requires them, each with its reason below.
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

cp=build/ext/checkpatch/checkpatch.pl
if [ ! -x "$cp" ]; then
	t_skip checkpatch "$cp missing (make setup)"
	t_done
fi
# checkpatch FILE [TYPES-TO-IGNORE]: zero errors, warnings and checks otherwise.
checkpatch() {
	local out
	out=$("$cp" --strict --no-tree --show-types --terse ${2:+--ignore "$2"} -f "$1" 2>&1)
	if grep -q ': \(ERROR\|WARNING\|CHECK\):' <<<"$out"; then
		t_fail "checkpatch.$1" "$(grep -m 3 ': \(ERROR\|WARNING\|CHECK\):' <<<"$out")"
	else
		t_ok "checkpatch.$1"
	fi
}
for f in kmod/*.c kmod/*.h common/ftrace_page.h; do
	case $f in
	*.mod.c) continue ;;
	# every kernel-version test lives here by design
	kmod/compat.h) checkpatch "$f" LINUX_VERSION_CODE,CONSTANT_COMPARISON ;;
	# X-macro generators: arguments are type and field names, bodies are declarations
	kmod/events.c) checkpatch "$f" MACRO_ARG_REUSE,TRAILING_SEMICOLON ;;
	*) checkpatch "$f" ;;
	esac
done
# the uapi keeps upstream trace_buffer_meta's field names (Reserved2)
checkpatch common/ftring_abi.h CAMELCASE
# the event schema is an X-macro table (lists of field macros, struct generators)
checkpatch common/ftring_events.h \
	COMPLEX_MACRO,MACRO_ARG_REUSE,MULTISTATEMENT_MACRO_USE_DO_WHILE,TRAILING_SEMICOLON
t_done
