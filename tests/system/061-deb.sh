#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb` builds recorderd_V_ARCH.deb and ftring-dkms_V_all.deb, V being dkms.conf's
# version, without touching the tree. recorderd's package holds a binary that runs,
# the units (the daemon's, which starts recorderd-salvage's) with the real path,
# /etc/recorderd.conf as a conffile and the man page; ftring-dkms's holds exactly the
# module's tracked sources, and the module builds from them the way DKMS builds it
# (dkms.conf's MAKE[0] in a copy). lintian reports no error and no warning that is
# not overridden. About 1 min on 2 CPUs: recorderd built once more by
# dpkg-buildpackage (~35 s), the module (~15 s), lintian (~10 s).
. "$(dirname "$0")/../lib/tap.sh"
cd "$TOP" || exit 1

for c in dpkg-buildpackage dh dh_dkms lintian; do
	command -v "$c" >/dev/null || { t_fail "deb.tools" "$c missing (scripts/setup-deps installs it)"; t_done; }
done

# The version as DKMS reads it: dkms.conf is shell, sourced.
ver=$(set +u; . ./dkms.conf; echo "$PACKAGE_VERSION")
arch=$(dpkg --print-architecture)
out=build/deb
rdeb=$out/recorderd_${ver}_$arch.deb
kdeb=$out/ftring-dkms_${ver}_all.deb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

before=$(git status --porcelain)
if make deb >"$tmp/build.log" 2>&1; then
	t_ok deb.build
else
	t_fail deb.build "make deb failed: $(tail -n 5 "$tmp/build.log")"
	t_done
fi
t_eq deb.tree-untouched "$(git status --porcelain)" "$before"
t_check "deb.recorderd-exists $rdeb" test -f "$rdeb"
t_check "deb.ftring-dkms-exists $kdeb" test -f "$kdeb"
if [ ! -f "$rdeb" ] || [ ! -f "$kdeb" ]; then t_done; fi
t_eq deb.recorderd-version "$(dpkg-deb -f "$rdeb" Version)" "$ver"
t_eq deb.ftring-dkms-version "$(dpkg-deb -f "$kdeb" Version)" "$ver"

# --- recorderd ----------------------------------------------------------------------
r=$tmp/recorderd
dpkg-deb -x "$rdeb" "$r"
bin=$r/usr/sbin/recorderd
t_eq deb.recorderd-elf "$(head -c 4 "$bin" 2>/dev/null | od -An -tx1 | tr -d ' ')" 7f454c46
t_check deb.recorderd-help sh -c "'$bin' --help | grep -q '^usage: recorderd COMMAND'"
t_check deb.recorderd-needs-libs sh -c "dpkg-deb -f '$rdeb' Depends | grep -q 'libtracecmd1.*libtracefs1'"
t_eq deb.recorderd-recommends "$(dpkg-deb -f "$rdeb" Recommends)" ftring-dkms

unit=$r/lib/systemd/system/recorderd.service
t_eq deb.unit-execstart "$(grep '^ExecStart=' "$unit" 2>/dev/null)" \
	"ExecStart=/usr/sbin/recorderd start --config /etc/recorderd.conf --foreground"
t_eq deb.unit-no-placeholders "$(grep -c '@[A-Z]*@' "$unit" 2>/dev/null)" 0
# the page the unit points to is in the package, uncompressed
docf=$(sed -n 's/^Documentation=file://p' "$unit" 2>/dev/null)
t_check "deb.unit-documentation $docf" test -n "$docf" -a -f "$r$docf"
# what finishes a dead daemon's capture when systemd gives up
sunit=$r/lib/systemd/system/recorderd-salvage.service
t_eq deb.salvage-unit-execstart "$(grep '^ExecStart=' "$sunit" 2>/dev/null)" \
	"ExecStart=/usr/sbin/recorderd salvage --config /etc/recorderd.conf"
t_eq deb.salvage-unit-no-placeholders "$(grep -c '@[A-Z]*@' "$sunit" 2>/dev/null)" 0
t_eq deb.unit-starts-salvage "$(grep -E '^(On(Failure|Success)|RuntimeDirectoryPreserve)=' "$unit" | tr '\n' ' ')" \
	"OnFailure=recorderd-salvage.service RuntimeDirectoryPreserve=yes "

t_eq deb.conffiles "$(dpkg-deb --ctrl-tarfile "$rdeb" | tar -xO ./conffiles)" /etc/recorderd.conf
t_check deb.conf-is-example cmp "$r/etc/recorderd.conf" recorder/daemon/recorderd.conf.example
t_check deb.example-in-doc cmp "$r/usr/share/doc/recorderd/recorderd.conf.example" \
	recorder/daemon/recorderd.conf.example
t_check deb.man-page sh -c "zcat '$r/usr/share/man/man8/recorderd.8.gz' | cmp - doc/recorderd.8"

# --- ftring-dkms --------------------------------------------------------------------
k=$tmp/ftring-dkms
dpkg-deb -x "$kdeb" "$k"
src=$k/usr/src/ftring-$ver
t_eq deb.dkms-sources "$(cd "$src" 2>/dev/null && find . -type f | sed 's|^\./||' | sort)" \
	"$(git ls-files Kbuild dkms.conf kmod common | sort)"
t_check deb.dkms-conf cmp "$src/dkms.conf" dkms.conf
t_check deb.dkms-depends sh -c "dpkg-deb -f '$kdeb' Depends | grep -q '^dkms'"

# What `dkms build` does: the sources copied to $dkms_tree/NAME/VER/build, dkms.conf
# sourced with kernel_source_dir set, MAKE[0] run there with -j and KERNELRELEASE.
kdir=${KDIR:-$(scripts/kdir)}
uts=$kdir/include/generated/utsrelease.h
if [ ! -f "$uts" ]; then
	t_skip deb.dkms-build "no kernel headers at $kdir"
else
	# the kernel's name under /lib/modules, as dkms passes it
	kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$uts")
	b=$tmp/dkms/ftring/$ver/build
	mkdir -p "$b" && cp -a "$src/." "$b/"
	if (
		set +u
		# shellcheck disable=SC2034 # what dkms.conf's MAKE[0] expands
		kernel_source_dir=$kdir dkms_tree=$tmp/dkms kernelver=$kver
		. "$src/dkms.conf"
		[ "$PACKAGE_NAME" = ftring ] || { echo "PACKAGE_NAME is '$PACKAGE_NAME'"; exit 1; }
		cd "$b" && ${MAKE[0]/#make/make -j2 KERNELRELEASE=$kver} &&
			test -f "${BUILT_MODULE_LOCATION[0]}${BUILT_MODULE_NAME[0]}.ko"
	) >"$tmp/dkms.log" 2>&1; then
		t_ok deb.dkms-build
		t_eq deb.dkms-vermagic "$(modinfo -F vermagic "$b/kmod/ftring.ko" | cut -d' ' -f1)" "$kver"
	else
		t_fail deb.dkms-build "$(tail -n 5 "$tmp/dkms.log")"
	fi
fi

# --- lintian: no error, no warning that debian/*.lintian-overrides does not explain ---
lintian --fail-on error,warning "$out"/*.changes >"$tmp/lintian.log" 2>&1
t_eq deb.lintian-exit "$?" 0
t_eq deb.lintian-tags "$(grep -E '^[EW]: ' "$tmp/lintian.log")" ""
t_done
