#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# group = NAME: the daemon's files (0640), its directories (0750) and its control
# socket (0660) belong to that group, whose members may read the traces and run
# `status`, never a mutating command; anyone else gets nothing. Users and a group of
# its own are made for the test and removed after it. The finished file (renamed over
# the live one) keeps the group. All of it also with the unit's capability bounding
# set alone, as systemd starts it.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/recd.sh"

for t in groupadd useradd runuser; do
	command -v $t >/dev/null || { t_skip group "no $t"; t_done; }
done
G=rg026_$$ U=ru026_$$ O=ro026_$$
EXTRA_CLEANUP='userdel "$U" 2>/dev/null; userdel "$O" 2>/dev/null; groupdel "$G" 2>/dev/null'
recd_setup 026
groupadd "$G" && useradd -M -N -g nogroup -G "$G" -s /bin/false "$U" &&
	useradd -M -N -g nogroup -s /bin/false "$O" ||
	{ t_skip group "cannot make a test group and users"; t_done; }
chmod 0711 "$TMP"	# the users must reach the socket and files below it
as() { local who=$1; shift; runuser -u "$who" -- "$@"; }
perm() { stat -c '%a %G' "$1"; }

out=$(recd_start -O group=nosuchgroup_$$ 2>&1)
t_check "an unknown group is refused" grep -q "group: no such group" <<<"$out"
recd_start -O group="$G" -O sync_ms=200 >/dev/null || { t_fail group "start failed"; t_done; }
mark grp 1 100
sleep 0.5
f=$(ls "$OUT"/*.dat | head -n 1)
t_eq "the live file: 0640, the group's" "$(perm "$f")" "640 $G"
t_eq "the output directory: 0750, the group's" "$(perm "$OUT")" "750 $G"
t_eq "the socket: 0660, the group's" "$(perm "$SOCK")" "660 $G"
t_eq "the socket's directory: the group's" "$(perm "$(dirname "$SOCK")" | cut -d' ' -f2)" "$G"
t_check "a member runs status" as "$U" "$RECORDERD" status --socket "$SOCK"
out=$(as "$U" "$RECORDERD" stop --socket "$SOCK" 2>&1)
t_eq "a member cannot stop it" "$?" 1
t_check "  and is told why" grep -q "needs root" <<<"$out"
t_check "  and it still runs" recd status
t_check "a member reads the trace" as "$U" dd if="$f" of=/dev/null bs=4k count=1 status=none
t_check "a non-member cannot run status" bash -c "! runuser -u $O -- $RECORDERD status --socket $SOCK"
t_check "a non-member cannot read the trace" bash -c "! runuser -u $O -- dd if=$f of=/dev/null count=1 status=none"
recd stop >/dev/null
t_eq "the finished file keeps them" "$(perm "$f")" "640 $G"
t_check "the finished file reads" report_ok "$f"

# --- with the unit's capabilities alone ----------------------------------------------------
# systemd starts recorderd with recorderd.service's CapabilityBoundingSet: giving the
# files, directories and socket to the group must work with those (CAP_CHOWN).
unit=$(dirname "$0")/../../recorder/daemon/recorderd.service
keep=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr 'A-Z' 'a-z' | tr ' ' '\n')
drop=$(capsh --print 2>/dev/null | sed -n 's/^Bounding set =//p' | tr ',' '\n' |
	grep -vxF -f <(echo "$keep") | paste -sd,)
if [ -z "$keep" ] || [ -z "$drop" ]; then
	t_skip "the unit's capabilities" "no capsh, or no CapabilityBoundingSet in $unit"
else
	rm -rf "$OUT" "$(dirname "$SOCK")"
	out=$(capsh --drop="$drop" -- -c "exec '$RECORDERD' start --socket '$SOCK' -i '$INST' \
		-d '$OUT' -O group='$G' -O sync_ms=200" 2>&1)
	rc=$?
	t_eq "with the unit's capabilities: starts ($out)" "$rc" 0
	mark grp 1 10
	sleep 0.5
	f=$(ls "$OUT"/*.dat 2>/dev/null | head -n 1)
	t_eq "with the unit's capabilities: the file is the group's" "$(perm "$f")" "640 $G"
	t_eq "with the unit's capabilities: the socket is the group's" "$(perm "$SOCK")" "660 $G"
	recd stop >/dev/null
fi
t_done
