#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of tests/bench/vm_bench: the two benchmark parts one after the other in
# the same boot. Each leaves tracefs and the module as it found them.
#   vm_bench_guest.sh "PINGPONG_ARGS" "RECORDER_ARGS"
# shellcheck disable=SC2086 # each argument is a list of sizes, split on purpose
vm_pingpong_guest.sh $1
echo "vm_bench: producer part exit $?" >&2
# shellcheck disable=SC2086
vm_recorder_guest.sh $2
echo "vm_bench: recorder part exit $?" >&2
exit 0
