#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fuzz targets in make check: each target's kept regression inputs, then
# FUZZ_CHECK_SECONDS (default 45, at most 60) of fuzzing from its seeds; any crash,
# leak, UB or timeout fails. `make fuzz` runs them for longer.
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_CHECK_SECONDS:-45}
[ "$secs" -le 60 ] || secs=60
# A fresh corpus each time, so every run starts from the same seeds.
FUZZ_CORPUS=$(mktemp -d) || exit 1
export FUZZ_CORPUS
trap 'rm -rf "$FUZZ_CORPUS"' EXIT
"$top/tests/fuzz/run" "$secs"
