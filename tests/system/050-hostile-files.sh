#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Damaged and hostile files through the two commands that read files nobody vouches
# for: HOSTILE_FILES (default 2000) mutations of the fuzz seeds (trace-cmd's own files
# and the recorder's, finished and crash-left: tests/fuzz/seeds), each through
# `recorderd recover -o` and `recorderd export --fxt`. Every run must end with an exit
# status of its own (no signal), within 30 s, and under 1 GiB of RSS. The mutations
# are reproducible: HOSTILE_SEED picks them (printed); an input that crashed is kept
# in build/hostile/.
source "$(dirname "$0")/../lib/tap.sh"

n=${HOSTILE_FILES:-2000}
seed=${HOSTILE_SEED:-$RANDOM}
seeds=$TOP/build/fuzz/seeds/recover
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$RECORDERD" ] || [ ! -x "$TOP/build/fuzz/make_seeds" ]; then
	t_skip "hostile files" "no $RECORDERD or build/fuzz/make_seeds (make all fuzz-build)"
	t_done
fi
if [ ! -d "$seeds" ]; then
	"$TOP/tests/fuzz/seeds" "$tmp/seeds" >/dev/null || { t_fail "seeds" "tests/fuzz/seeds"; t_done; }
	seeds=$tmp/seeds/recover
fi
echo "# $n mutations of $(ls "$seeds" | wc -l) seeds, HOSTILE_SEED=$seed"

/usr/bin/python3 - "$RECORDERD" "$seeds" "$tmp" "$n" "$seed" "$TOP/build/hostile" <<'PY'
import os, random, resource, shutil, subprocess, sys

rec, seeds, tmp, n, seed, keep = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), \
    int(sys.argv[5]), sys.argv[6]
rng = random.Random(seed)
files = sorted(os.path.join(seeds, f) for f in os.listdir(seeds))
blobs = [open(f, "rb").read() for f in files]
LIMIT_S, RSS_MAX_KB = 30, 1 << 20
INTERESTING = [0, 1, 0x7f, 0xff, 0x7fff, 0xffff, 0x7fffffff, 0xffffffff, 0x80000000,
               (1 << 63) - 1, (1 << 64) - 1, 4096, 4095, 4097]

def where(size):
    # Structure lives at the head (header, sections) and the tail (options): bias there.
    r = rng.random()
    if r < 0.4:
        return rng.randrange(min(size, 65536))
    if r < 0.6:
        return max(0, size - 1 - rng.randrange(min(size, 65536)))
    return rng.randrange(size)

def mutate(b):
    b = bytearray(b)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 8])):
        if not b:
            break
        op = rng.randrange(6)
        at = where(len(b))
        if op == 0:                                    # flip bits
            b[at] ^= 1 << rng.randrange(8)
        elif op == 1:                                  # an interesting number
            w = rng.choice([2, 4, 8])
            v = rng.choice(INTERESTING + [rng.getrandbits(8 * w)]) & ((1 << (8 * w)) - 1)
            b[at:at + w] = v.to_bytes(w, "little")
        elif op == 2:                                  # cut
            del b[at:]
        elif op == 3:                                  # zero a range
            k = rng.randrange(1, 4096)
            b[at:at + k] = bytes(len(b[at:at + k]))
        elif op == 4:                                  # repeat a block
            k = rng.randrange(1, 8192)
            b[at:at] = b[at:at + k]
        else:                                          # random bytes
            k = rng.randrange(1, 64)
            b[at:at + k] = rng.randbytes(k)
    return bytes(b)

crashes = {"recover": [], "export": []}
hangs = {"recover": [], "export": []}
codes = {"recover": {}, "export": {}}
contained = 0
for i in range(n):
    k = rng.randrange(len(blobs))
    path = os.path.join(tmp, "in.dat")
    with open(path, "wb") as f:
        f.write(mutate(blobs[k]))
    for name, argv in (("recover", [rec, "recover", "-o", os.path.join(tmp, "out.dat"), path]),
                       ("export", [rec, "export", "--fxt", "-q", path, os.path.join(tmp, "out.fxt")])):
        try:
            p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=LIMIT_S)
            rc = p.returncode
            codes[name][rc] = codes[name].get(rc, 0) + 1
            if b"libtracecmd was killed" in p.stderr:
                contained += 1
                if os.environ.get("HOSTILE_KEEP_CONTAINED"):
                    os.makedirs(keep, exist_ok=True)
                    shutil.copyfile(path, os.path.join(keep, "contained-%d-%d.dat" % (seed, i)))
            if rc < 0 or rc >= 128 or b"Sanitizer" in p.stderr:
                kept = os.path.join(keep, "%s-%d-%d.dat" % (name, seed, i))
                os.makedirs(keep, exist_ok=True)
                os.replace(path, kept)
                crashes[name].append("%s (of %s): %s" % (kept, os.path.basename(files[k]),
                                     p.stderr.decode(errors="replace").strip()[-200:] or rc))
                break
        except subprocess.TimeoutExpired:
            hangs[name].append("#%d of %s" % (i, os.path.basename(files[k])))
        for out in ("out.dat", "out.fxt"):
            try:
                os.unlink(os.path.join(tmp, out))
            except FileNotFoundError:
                pass

rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
t = 0
def line(ok, what, why=""):
    global t
    t += 1
    print(("ok %d %s" if ok else "not ok %d %s") % (t, what))
    if not ok:
        print("# FAIL %s: %s" % (what, why))
    return ok
npass = nfail = 0
for name in ("recover", "export"):
    print("# %s exit statuses: %s" % (name, dict(sorted(codes[name].items()))))
    for kind, lst in (("crashes", crashes[name]), ("hangs", hangs[name])):
        ok = line(not lst, "%s: %d mutated files, 0 %s" % (name, n, kind),
                  "%d: %s" % (len(lst), "; ".join(lst[:3])))
        npass += ok
        nfail += not ok
print("# export: libtracecmd crashed or hit a limit in its sandbox on %d files" % contained)
ok = line(rss <= RSS_MAX_KB, "largest RSS %d MiB <= %d MiB" % (rss >> 10, RSS_MAX_KB >> 10),
          "%d KiB" % rss)
npass += ok
nfail += not ok
print("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
