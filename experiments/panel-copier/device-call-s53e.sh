#!/usr/bin/env bash
# Session 53, call 5 (branch s53-panel-copier, the copier warp on by default):
# an A/B of the copier (rule against DLA_POTRF_PANEL_COPIER=0, two rounds) on
# whichever card comes, then the gpu-check of the library (test, the
# sanitizers of every *Sanitize* test in parallel runs, bench potrf getrf).
# Prediction: as call 4 on an H100 (4096 -6%, 2048 -7%, 3000 -6%, 5000 -3.5%,
# 8192 -2.5%); on the H200 4096 ~1.21-1.23 ms against ~1.29 (1.24-1.26x).
# Run: `run` with `LIMIT=470 bash experiments/panel-copier/device-call-s53e.sh`, carry [".carry"].
LIMIT=${LIMIT:-470}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
sweep_potrf "2048 3000 4096 5000 8192" 2 400 rule DLA_POTRF_PANEL_COPIER=0 > "$O/sweep.txt"
echo "sweep end at ${SECONDS} s" >> "$O/gpu.txt"
gpu_check_carried 5 test,sanitize,bench check
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/sweep.txt" "$O/summary.txt" "$O/check/summary.txt"
grep -E "^potrf +tf32x3 +(spotrf|sposv)" "$O/check/bench.log"
