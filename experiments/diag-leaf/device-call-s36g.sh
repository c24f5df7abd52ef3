#!/usr/bin/env bash
# Session 36, last call: every chunk of the fused panel stamped inside spotrf
# 4096 (diag_stamps.cuh's "panel chunks" table), with the leaf kernel and
# with the tile kernel. Carry .carry/tl_stamps.xz (built as
# experiments/timeline/device-run-stamps.sh says, from 9d8f922's potrf.cu).
set -u
cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps
for v in 1 0; do
  DLA_POTRF_DIAG_LEAF=$v timeout 90 ./tl_stamps -q 4096 > "$OUT/chunks-leaf$v.txt" 2>&1
done
grep -h "median\|sum of" "$OUT"/chunks-*.txt
