#!/usr/bin/env bash
# The panel-tail probe on the device (session 28): build it here against this
# machine's build of dla_core, carry it, and run it there:
#   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Isolvers/src/cuda \
#     -Icore/include experiments/panel-tail/tail_probe.cu build/core/libdla_core.a \
#     -o .carry/tail_probe
#   device call, carry [".carry/tail_probe"]: bash experiments/panel-tail/device-run.sh
# Prints, alone and next to 64 and 96 SM-wide FMA hogs, when each chunk of the
# fused panel passes its waits, loads and solves, against the diagonal
# kernel's releases (median of 40 runs); $OUT/probe.txt keeps the output.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
./.carry/tail_probe 0 64 96 | tee "${OUT:-/tmp}/probe.txt"
