#!/usr/bin/env bash
# Session 36, call 2: in-place stamps of the leaf kernel against the tile
# kernel inside spotrf (diag_stamps.cuh). Carry .carry/tl_stamps.xz, built
# as device-run-stamps.sh says, with the session's potrf.cu.
set -u
cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps
for v in 1 0; do
  DLA_POTRF_DIAG_LEAF=$v timeout 90 ./tl_stamps -q 4096 2048 > "$OUT/stamps-leaf$v.txt" 2>&1
done
grep -h "median\|sum of" "$OUT"/stamps-*.txt
