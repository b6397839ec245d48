#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The recorderd daemon on the ftring module in a 2-vCPU guest
# (tests/vm/guest/daemon-kmod.sh): a flight-mode snapshot after a marker burst larger
# than the ring holds exactly the newest markers; rmmod is refused while the daemon
# holds the devices and stop still finalizes a readable file; a CPU going offline and
# back during a stream capture loses nothing that is not counted. Every file is read
# here with trace-cmd report (the reader of truth).
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/vm/lib.sh"

if [ ! -f "$VM_KO" ]; then
	t_skip daemon-kmod "kmod/ftring.ko not built (make module)"
	t_done
fi
for p in "$VM_BDIR/recorderd" "$VM_BDIR/vm/progs/ftring_ctl"; do
	[ -x "$p" ] || { t_fail daemon-kmod "$p missing (make)"; t_done; }
done
command -v trace-cmd >/dev/null || { t_skip daemon-kmod "no trace-cmd on the host"; t_done; }
vm_test daemon-kmod -c 2 -t 900 -- "$TOP/tests/vm/guest/daemon-kmod.sh"

# --- 1. flight snapshot: a contiguous run ending at the last marker written --------
if vm_report flight; then
	nw=$(cat "$VM_DIR/flight-written.txt" 2>/dev/null)
	vm_markers flight fl >"$VM_DIR/flight-markers.txt"
	k=$(wc -l <"$VM_DIR/flight-markers.txt")
	first=$(head -n 1 "$VM_DIR/flight-markers.txt")
	last=$(tail -n 1 "$VM_DIR/flight-markers.txt")
	ovr=$(sed -n 's/^cpu=0 .* overrun=\([0-9]*\) .*/\1/p' "$VM_DIR/flight-stats.txt")
	ent=$(sed -n 's/^cpu=0 .* entries=\([0-9]*\) .*/\1/p' "$VM_DIR/flight-stats.txt")
	echo "# flight: $nw markers written, snapshot holds $k (${first:-none}..${last:-none})," \
		"module cpu0 entries=$ent overrun=$ovr"
	t_eq flight.has-newest "$last" "$nw"
	if [ "$k" -gt 0 ] &&
	   [ "$(seq "$first" "$last" | md5sum)" = "$(md5sum <"$VM_DIR/flight-markers.txt")" ]; then
		t_ok flight.contiguous
	else
		t_fail flight.contiguous "markers ${first}..${last} ($k) are not a run without holes"
	fi
	if [ "$k" -lt "$nw" ]; then t_ok flight.ring-overwritten; else
		t_fail flight.ring-overwritten "all $k markers fit: the burst did not wrap the ring"; fi
	# Every marker the ring no longer holds was counted as overwritten, and the
	# daemon's status says so.
	t_eq flight.overrun-accounts "$((k + ${ovr:-0}))" "$nw"
	t_eq flight.status-overwritten "$(sed -n 's/^ *lost events:.*, \([0-9]*\) overwritten$/\1/p' \
		"$VM_DIR/flight-status.txt")" "$ovr"
	t_eq flight.one-cpu "$(grep -cE 'marker: +fl [0-9]+$' "$VM_DIR/flight-report.txt")" \
		"$(grep -cE '\[000\].*marker: +fl [0-9]+$' "$VM_DIR/flight-report.txt")"
fi
# the snapshot moved to another filesystem reads too
vm_report flight-xdev

# --- 2. stop after a refused rmmod: markers 1..N each once --------------------------
if vm_report rmmod; then
	nw=$(cat "$VM_DIR/rmmod-written.txt" 2>/dev/null)
	vm_markers rmmod rm >"$VM_DIR/rmmod-markers.txt"
	k=$(wc -l <"$VM_DIR/rmmod-markers.txt")
	echo "# rmmod: $nw markers written, $k in the file"
	if [ "$(seq 1 "$nw" | md5sum)" = "$(md5sum <"$VM_DIR/rmmod-markers.txt")" ]; then
		t_ok rmmod.markers-1-to-n
	else
		t_fail rmmod.markers-1-to-n "$k markers, not 1..$nw once each in order"
	fi
fi

# --- 3. hotplug: both writers, no duplicates, in order, holes only as counted -------
if vm_report hotplug; then
	read -r _ n0 _ n1 <"$VM_DIR/hotplug-counts.txt"
	lost=$(sed -n 's/^ *lost events: *\([0-9]*\) dropped.*/\1/p' "$VM_DIR/hotplug-status.txt")
	lost=${lost:-0}
	miss=0
	for w in 0 1; do
		eval "nw=\$n$w"
		vm_markers hotplug "hp$w" >"$VM_DIR/hotplug-hp$w.txt"
		k=$(wc -l <"$VM_DIR/hotplug-hp$w.txt")
		u=$(sort -un "$VM_DIR/hotplug-hp$w.txt" | wc -l)
		t_eq "hotplug.hp$w-no-duplicates" "$u" "$k"
		if sort -nc "$VM_DIR/hotplug-hp$w.txt" 2>/dev/null; then t_ok "hotplug.hp$w-in-order"
		else t_fail "hotplug.hp$w-in-order" "$(sort -nc "$VM_DIR/hotplug-hp$w.txt" 2>&1)"; fi
		if [ "$k" -gt 0 ]; then t_ok "hotplug.hp$w-present"; else
			t_fail "hotplug.hp$w-present" "no marker of the writer on cpu$w"; fi
		bad=$(awk -v n="$nw" '$1 < 1 || $1 > n' "$VM_DIR/hotplug-hp$w.txt" | wc -l)
		t_eq "hotplug.hp$w-in-range" "$bad" 0
		miss=$((miss + nw - u))
		echo "# hotplug: writer hp$w wrote $nw, $k in the file"
	done
	c1=$(grep -cE '\[001\].*marker: +hp1 [0-9]+$' "$VM_DIR/hotplug-report.txt")
	if [ "$c1" -gt 0 ]; then t_ok hotplug.cpu1-recorded; else
		t_fail hotplug.cpu1-recorded "no hp1 marker recorded on cpu1"; fi
	# cpu1's buffer kept being read once the CPU came back: the file has every event
	# the module counted on it, more than it had while offline.
	e1=$(awk '$1 == 1 { print $2 }' <(sed -n '/^ *CPU /,$p' "$VM_DIR/hotplug-status.txt"))
	e1off=$(awk '$1 == 1 { print $2 }' <(sed -n '/^ *CPU /,$p' "$VM_DIR/hotplug-status-offline.txt"))
	t_eq hotplug.cpu1-all-in-file "$(grep -cE '\[001\].*marker: ' "$VM_DIR/hotplug-report.txt")" "$e1"
	if [ "${e1:-0}" -gt "${e1off:-0}" ]; then t_ok hotplug.cpu1-after-online; else
		t_fail hotplug.cpu1-after-online "cpu1 entries $e1off while offline, $e1 after"; fi
	echo "# hotplug: cpu1 entries $e1off while offline, $e1 at the end"
	echo "# hotplug: $miss markers missing, status reports $lost lost; $c1 hp1 markers on cpu1"
	if [ "$miss" -le "$lost" ]; then t_ok hotplug.holes-counted; else
		t_fail hotplug.holes-counted "$miss markers missing, only $lost reported lost"; fi
fi
t_done
