#!/usr/bin/env bash
# Session 55, call 10: the library with the late groups and the leaf tail as
# rules (potrf_blocking.cpp): the potrf bench (the issue's rows, default
# sizes, native and tf32x3, with cuSOLVER in the same run) and spotrf at
# 10240 / 12288 / 12289 / 14336, where the new rules act (each row's
# backward error checked: status "ok"). Little device time was left: no
# ctest (the rules only choose among paths the ctest entries
# blocking_leaf_tail and blocking_first_late_groups ran in call 8).
# Run: `run` with `LIMIT=120 bash experiments/h200-table/device-call-s55f.sh`, carry [".carry"].
# Prediction (H100): 16384 22.9-23.2 ms (call 9), 14336 16.6-16.7, 12288
# 11.40-11.46, 10240 7.40-7.44; below 10240 unchanged (4096 ~1.22).
LIMIT=${LIMIT:-120}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"; cat "$O/gpu.txt"
timeout 60 "$B/apps/dla" bench potrf --json "$O/bench.json" > "$O/bench.txt" 2>&1
echo "bench rc $? at ${SECONDS} s"
timeout 50 "$B/apps/dla" bench potrf --sizes 10240 12288 12289 14336 --variants tf32x3 --repeat 10 \
  > "$O/bench-large.txt" 2>&1
echo "bench-large rc $? at ${SECONDS} s"
grep -E "^potrf" "$O/bench.txt" "$O/bench-large.txt" | cut -c1-200
