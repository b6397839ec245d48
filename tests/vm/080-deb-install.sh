#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages of `make deb` on a Debian 12 system booted with systemd
# (tests/vm/run --rootfs; the image is scripts/debian-rootfs', built once): apt-get
# installs both with no network, DKMS builds ftring for the guest's kernel, the service
# started with the configuration a user would write records from the module, markers
# written in the guest come back in its snapshot (read here with trace-cmd report), the
# service stops cleanly and removing the packages takes the module out of DKMS
# (tests/vm/guest/deb-install.sh).
# The guest needs one host core for 9 minutes and nothing of the host's timing:
# tests/run: alongside
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

debs=()
for p in recorderd ftring-dkms; do
	f=$(ls "$TOP"/build/deb/"$p"_*.deb 2>/dev/null | sort -V | tail -n 1)
	[ -n "$f" ] || { t_skip deb-install "no $p package in build/deb (make deb)"; t_done; }
	debs+=(-f "$f")
done
[ -x "$TOP/build/vm/progs/ftring_ctl" ] || { t_fail deb-install "no build/vm/progs/ftring_ctl (make)"; t_done; }
command -v trace-cmd >/dev/null || { t_skip deb-install "no trace-cmd on the host"; t_done; }
# DKMS compiles the module inside the TCG guest: most of the run. One host thread per
# vCPU would halve it (apt-get 364 -> 214 s) but the daemon flips tracepoints here,
# which hangs such a guest now and then (tests/vm/run): one thread. 560-725 s here
# beside 090; 900 s ran out with apt-get at depmod (13 min in) when this host was also
# running a busy loop and the host tests: 1500 s (tests/run stops a test at 1800).
vm_test deb-install --rootfs -c 2 -t 1500 "${debs[@]}" -f "$TOP/build/vm/progs/ftring_ctl" -- \
	"$TOP/tests/vm/guest/deb-install.sh"

if vm_report snap; then
	nw=$(cat "$VM_DIR/snap-written.txt" 2>/dev/null)
	vm_markers snap deb-install >"$VM_DIR/snap-markers.txt"
	echo "# snapshot: $nw markers written, $(wc -l <"$VM_DIR/snap-markers.txt") in the file"
	if [ -n "$nw" ] && [ "$(seq 1 "$nw" | md5sum)" = "$(md5sum <"$VM_DIR/snap-markers.txt")" ]; then
		t_ok snap.markers-1-to-n
	else
		t_fail snap.markers-1-to-n "not markers 1..$nw once each in order (snap-markers.txt)"
	fi
fi
# markers_in NAME TAG N CHECK: NAME.dat (read by trace-cmd) holds "TAG 1".."TAG N" in order
markers_in() {
	vm_report "$1" || return
	vm_markers "$1" "$2" >"$VM_DIR/$1-markers.txt"
	if [ "$(seq 1 "$3" | md5sum)" = "$(md5sum <"$VM_DIR/$1-markers.txt")" ]; then
		t_ok "$1.$4"
	else
		t_fail "$1.$4" "not $2 1..$3 in order ($(wc -l <"$VM_DIR/$1-markers.txt") found)"
	fi
}
# The file of the daemon the watchdog killed, recovered by its successor: every marker
# it had synced before it froze.
markers_in crashed pre-freeze 100 markers-before-the-freeze
# The restarted daemon took the module's rings over: the markers written while its
# predecessor was frozen are in its file.
markers_in successor during-freeze 50 markers-written-while-frozen
# No daemon came back (OnFailure= ran recorderd-salvage): the killed daemon's file,
# recovered, holds the markers it had synced; salvage's new file the markers written
# while the daemon was frozen, then dead.
markers_in killed pre-kill 100 markers-before-the-kill
markers_in salvaged no-daemon 50 markers-written-with-no-daemon
t_done
