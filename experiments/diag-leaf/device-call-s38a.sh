#!/usr/bin/env bash
# Session 38, call 1: the leaf kernel's phases in place, every leaf
# (diag_stamps.cuh's "leaf phases" table), spotrf 4096, 2048 and 8192, final
# library of session 37 (6b76d4c) with the stamps. Carry .carry/tl_stamps.xz
# only (built as in experiments/timeline/device-run-stamps.sh's header).
set -u
cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps
timeout 120 ./tl_stamps -q 4096 2048 8192 > "$OUT/stamps-leaf-phases.txt" 2>&1
echo "rc=$?"
grep -h "median\|sum of\|spotrf\|^n=" "$OUT/stamps-leaf-phases.txt" | head -40
