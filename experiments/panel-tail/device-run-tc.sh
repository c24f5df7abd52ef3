#!/usr/bin/env bash
# Session 31: the panel-tail probe with the 64-row panel (potrf_panel_kernel,
# right-looking), the 128-row panel with tensor-core updates
# (PROBE_PANEL_TC=1) and with CUDA-core updates (PROBE_PANEL_TC=2), alone and
# next to 96 SM-wide FMA hogs. Carry .carry/tail_probe (see tail_probe.cu).
set -u; O="${OUT:-/tmp}"; mkdir -p "$O"
echo "### 64-row"; ./.carry/tail_probe 0 96
echo "### 128-row, tensor-core updates"; PROBE_PANEL_TC=1 ./.carry/tail_probe 0 96
echo "### 128-row, CUDA-core updates"; PROBE_PANEL_TC=2 ./.carry/tail_probe 0 96
for k in 0 1; do
  cuobjdump -sass -fun "_ZN3dla4cuda6detail21potrf_panel_tc_kernelILb${k}EEEvPKfPflilbPKii" .carry/tail_probe \
    > "$O/sass-tc$k.txt" 2>&1
  echo "sass tc<$k>: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$O/sass-tc$k.txt") instructions"
  grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' "$O/sass-tc$k.txt" | awk '{print $NF}' | sort | uniq -c | sort -rn | head -14 | tr '\n' ' '; echo
done
