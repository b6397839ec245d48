# SPDX-License-Identifier: GPL-2.0
# Shell helpers for the recorderd daemon tests (tests/system/02x-*.sh, the bench):
# a private socket, output directory and tracefs instance per test, cleaned up on exit
# even on failure. Source after tap.sh.
#   recd_setup NAME      sets TRACEFS INST TMP SOCK OUT; skips the test if not possible
#   recd_start ARGS...   recorderd start with the private socket/instance/output
#   recd ARGS...         a client command on the private socket (recd status, ...)
#   recd_pid             pid of the running daemon ("" if none)
#   mark TAG FIRST LAST  writes markers "TAG N" for N in FIRST..LAST
#   markers FILE TAG     prints the N of every "TAG N" marker in FILE, in file order
#   report_ok FILE       trace-cmd report prints no error for FILE
#   notify_listener SOCK LOG SECS   a stand-in notify socket (run in the background)
#   ctl_status_raw SOCK [FIRST MAX] one STATUS request on the socket, timed
TRACEFS=/sys/kernel/tracing
# Debian's python3, not a user's shim (pyenv shims take a second to start).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

recd_cleanup() {
	local pid
	pid=$(recd_pid)
	if [ -n "$pid" ]; then
		"$RECORDERD" stop --socket "$SOCK" --timeout 30 >/dev/null 2>&1 || true
		kill -9 "$pid" 2>/dev/null || true
	fi
	# Background writers (and their children) still holding the instance's files.
	for pid in $(jobs -p); do
		pkill -P "$pid" 2>/dev/null
		kill "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "${EXTRA_CLEANUP:-}" ] && eval "$EXTRA_CLEANUP"
	if [ -n "${INST:-}" ] && [ -d "$TRACEFS/instances/$INST" ]; then
		for ((i = 0; i < 20; i++)); do
			rmdir "$TRACEFS/instances/$INST" 2>/dev/null && break
			sleep 0.1
		done
		[ -d "$TRACEFS/instances/$INST" ] && echo "# cleanup: cannot remove instance $INST"
	fi
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
	return 0
}

recd_setup() {
	if [ ! -x "$RECORDERD" ]; then
		t_skip "$1" "no $RECORDERD (build first)"; t_done
	fi
	INST=recd_$1_$$
	if ! mkdir "$TRACEFS/instances/$INST" 2>/dev/null; then
		INST=
		t_skip "$1" "tracefs instances not writable (needs root and $TRACEFS)"; t_done
	fi
	TMP=$(mktemp -d)
	# A private copy: the shared build/ may be relinked while a long test runs.
	cp "$RECORDERD" "$TMP/recorderd" && RECORDERD=$TMP/recorderd
	SOCK=$TMP/run/ctl.sock
	OUT=$TMP/out
	trap recd_cleanup EXIT
}

recd_start() {
	"$RECORDERD" start --socket "$SOCK" -i "$INST" -d "$OUT" "$@"
}

recd() {
	local c=$1; shift
	"$RECORDERD" "$c" --socket "$SOCK" "$@"
}

recd_pid() {
	[ -n "${SOCK:-}" ] || return 0
	"$RECORDERD" status --socket "$SOCK" --json 2>/dev/null |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)["pid"])' 2>/dev/null || true
}

# Field of status --json.
recd_json() {
	"$RECORDERD" status --socket "$SOCK" --json 2>/dev/null |
		"$PY" -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"
}

# A stand-in for systemd's notify socket: each datagram to SOCK as a line of LOG ("|"
# for its newlines), until STOPPING=1 or SECS without one. Run it in the background.
notify_listener() {
	"$PY" - "$1" "$2" "$3" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(float(sys.argv[3]))
with open(sys.argv[2], "w", buffering=1) as log:
    try:
        while True:
            msg = s.recv(4096).decode()
            log.write(msg.replace("\n", "|") + "\n")
            if "STOPPING=1" in msg:
                break
    except socket.timeout:
        pass
EOF
}

# One STATUS request straight on the socket (no client program to start): prints
# "ms=N state=S ncpus=N total=N first=N cpus=A,B,..". FIRST and MAX page the CPUs
# (struct ctl_status_req); without them the request has no payload.
ctl_status_raw() {
	"$PY" - "$@" <<'EOF'
import socket, struct, sys, time
path = sys.argv[1]
pl = struct.pack("<IIQ", int(sys.argv[2]), int(sys.argv[3]), 0) if len(sys.argv) > 3 else b""
t0 = time.monotonic()
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(5)
s.connect(path)
s.send(struct.pack("<IHHIIII", 0x4c544352, 1, 2, len(pl), 7, 0, 0) + pl)
m = s.recv(65536)
ms = (time.monotonic() - t0) * 1000
magic, ver, code, plen, seq = struct.unpack_from("<IHHII", m)
if code != 0:
    print("ms=%d code=%d" % (ms, code))
    sys.exit(0)
state, mode, pid, ncpus = struct.unpack_from("<IIII", m, 24)
flags, total, first = struct.unpack_from("<III", m, 24 + 96)
cpus = [struct.unpack_from("<I", m, 24 + 128 + 56 * i)[0] for i in range(ncpus)]
print("ms=%d state=%d ncpus=%d total=%d first=%d cpus=%s" %
      (ms, state, ncpus, total, first, ",".join(map(str, cpus))))
EOF
}

mark() {
	local tag=$1 i
	for ((i = $2; i <= $3; i++)); do echo "$tag $i"; done >"$TRACEFS/instances/$INST/trace_marker"
}

markers() {
	trace-cmd report -i "$1" 2>/dev/null | grep -o "tracing_mark_write: $2 [0-9]*" | awk '{print $3}'
}

report_ok() {
	local out
	out=$(trace-cmd report -i "$1" 2>&1 >/dev/null | grep -iE "error|fail|truncat|bad|unknown")
	[ -z "$out" ] || { echo "# report $1: $out"; return 1; }
	trace-cmd report -i "$1" 2>/dev/null | head -n 1 | grep -q "^cpus="
}

# Runs trace-cmd report once: its output in $2, its error lines in $2.err; 0 when clean.
report_to() {
	trace-cmd report -i "$1" >"$2" 2>"$2.err"
	! grep -qiE "error|fail|truncat|bad|unknown" "$2.err" && head -n 1 "$2" | grep -q "^cpus="
}

# The N of every "TAG N" marker in a saved report $1.
markers_in() {
	grep -o "tracing_mark_write: $2 [0-9]*" "$1" | awk '{print $3}'
}

# All markers TAG over the files $2..., in file order (a file trace-cmd cannot read
# prints BAD among them).
all_markers() {
	local tag=$1 f; shift
	for f in "$@"; do
		report_to "$f" "$TMP/rep" || { echo "# report fails: $f $(head -c 200 "$TMP/rep.err")"; echo BAD; }
		markers_in "$TMP/rep" "$tag"
	done
}

# True when stdin is exactly the numbers 1..$1, one per line (empty input for 0).
is_seq() {
	local n=$1
	if [ "$n" -eq 0 ]; then
		[ -z "$(grep . || true)" ]
	else
		[ "$(grep . | md5sum)" = "$(seq 1 "$n" | md5sum)" ]
	fi
}

# True when process $1 has exited (a zombie counts: its parent may be a non-reaping init).
# Not while other threads are still exiting: the leader is a zombie first, and the files
# (the daemon's lock) go with the last thread. 021's next start found the lock held
# ("already running", the holder a zombie) at a load of 5-7 here and in one CI run.
gone() {
	[ ! -e "/proc/$1" ] ||
		{ [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ] &&
		  [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -le 1 ]; }
}

# writer TAG FIRST LAST [RATE] [PAD]: writes markers "TAG N <PAD x's>" for N in FIRST..LAST
# at RATE per second (0 = as fast as possible). A write the kernel refuses (the buffer
# is off while the daemon switches files) is retried, so the markers in the buffer are
# exactly FIRST..LAST with no holes. Runs on CPU 0.
writer() {
	# One CPU: the file order of the markers is then their write order.
	taskset -c 0 "$PY" - "$TRACEFS/instances/$INST/trace_marker" "$@" <<'EOF'
import os, sys, time
path, tag, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rate = float(sys.argv[5]) if len(sys.argv) > 5 else 0
pad = b" " + b"x" * int(sys.argv[6]) if len(sys.argv) > 6 else b""
fd = os.open(path, os.O_WRONLY)
t0 = time.time()
retries = 0
for n in range(first, last + 1):
    msg = b"%s %d%s\n" % (tag.encode(), n, pad)
    while True:
        try:
            os.write(fd, msg)
            break
        except OSError:
            retries += 1
            if retries > 20000:
                sys.exit("writer: trace_marker refuses writes for too long")
            time.sleep(0.0005)
    if rate and n % 20 == 0:
        ahead = (n - first) / rate - (time.time() - t0)
        if ahead > 0:
            time.sleep(ahead)
print("retries %d" % retries)
EOF
}
