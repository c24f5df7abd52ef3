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
# 2. A stall profile of one panel launch, per SASS instruction, for the
#    left-looking update loop (~110 cycles per column step in session 28).
#    Not yet run: the ncu options are from its documentation; under ncu the
#    kernels are serialized, so the panel runs with every flag already set.
# $OUT (or /tmp) keeps probe.txt, panel.ncu-rep and panel-sass.csv.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
O="${OUT:-/tmp}"
./.carry/tail_probe 0 64 96 | tee "$O/probe.txt"
ncu --section SourceCounters --section WarpStateStats --sampling-interval 0 \
  -k regex:potrf_panel_kernel -s 20 -c 1 -f -o "$O/panel" ./.carry/tail_probe 0 > "$O/ncu.log" 2>&1
tail -3 "$O/ncu.log"
ncu -i "$O/panel.ncu-rep" --page source --print-source sass --csv > "$O/panel-sass.csv" 2>&1
echo "panel-sass.csv: $(wc -l < "$O/panel-sass.csv") lines"
