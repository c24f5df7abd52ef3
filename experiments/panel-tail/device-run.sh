#!/usr/bin/env bash
# The panel-tail probe on the device (session 28): build it here against this
# machine's build of dla_core, carry it, and run it there:
#   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Isolvers/src/cuda \
#     -Icore/include experiments/panel-tail/tail_probe.cu build/core/libdla_core.a \
#     -o .carry/tail_probe
#   device call, carry [".carry/tail_probe"]: bash experiments/panel-tail/device-run.sh
# 1. Prints, alone and next to 64 and 96 SM-wide FMA hogs, when each chunk of
#    the fused panel passes its waits, loads and solves, against the diagonal
#    kernel's releases (median of 40 runs; ran in session 28).
#    Since session 29 each sub-panel is copied when it is released, so the
#    panel no longer waits for sub-panels < s nor loads a row block at a
#    chunk's start: "wait1" and "rows-loaded" print -1 (no stamp).
# 2. (session 28 planned an ncu stall profile here; ncu on the device
#    rejected `--sampling-interval 0`, and session 29 found the update loop's
#    limit without it: shared-memory wavefronts, docs/cholesky.md.)
# $OUT (or /tmp) keeps probe.txt.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
O="${OUT:-/tmp}"
./.carry/tail_probe 0 64 96 | tee "$O/probe.txt"
