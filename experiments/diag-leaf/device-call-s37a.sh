#!/usr/bin/env bash
# Session 37, call 1: the first device run of the broadcast-layout panel
# (branch exp/panel-bcast, DLA_POTRF_PANEL_BCAST=1): device-run-bcast.sh
# (Cholesky ctest entries, sanitizers, A/B of BCAST x LEAF) plus the
# per-chunk stamps at 4096 for BCAST=0, BCAST=1 and BCAST=1 + LEAF=1
# (.carry/tl_stamps.xz built from the branch, see device-run-stamps.sh).
set -u
bash experiments/diag-leaf/device-run-bcast.sh
cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps
for cfg in "0 0" "1 0" "1 1"; do
  set -- $cfg
  DLA_POTRF_PANEL_BCAST=$1 DLA_POTRF_DIAG_LEAF=$2 timeout 90 ./tl_stamps -q 4096 > "$OUT/stamps-b$1-l$2.txt" 2>&1
done
grep -h "median\|sum of" "$OUT"/stamps-*.txt
