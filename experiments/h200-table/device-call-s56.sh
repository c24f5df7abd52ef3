#!/usr/bin/env bash
# Session 56, call 1: the gpu-check of main (the late groups and the leaf
# tail now rules) on whatever card comes: the issue's table. Then the issue's
# time split (4096, 16384) and three interleaved rounds of spotrf at 4096 /
# 10240 / 16384 under the rules and two knobs (the marginal size's spread).
# Before: `bash experiments/h200-table/prepare.sh`.
# Run: `run` with `LIMIT=520 bash experiments/h200-table/device-call-s56.sh`,
# kind nvidia-h200, carry [".carry"].
# Predictions: H100 as session 55's call 8 / 10 (4096 1.25-1.30x, 16384
# 22.9-23.2 ms); H200: 4096 1.20-1.26x (session 52's 1.17-1.18x plus the
# copier's ~6%), 16384 ~1.7x.
LIMIT=${LIMIT:-520}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
cat "$O/gpu.txt"
gpu_check_carried 110 test,sanitize,bench check
cat "$O/summary.txt" "$O/check/summary.txt"
grep -E "^potrf +tf32x3 +(spotrf|sposv)" "$O/check/bench.log"
timeout 60 "$B/extra/timeline" 4096 16384 > "$O/timeline-rule.txt" 2>&1
for lib in dla cusolver; do
  /opt/torch/.venv/bin/python3 experiments/timeline/split.py "$O/timeline-rule.txt" --lib $lib \
    >> "$O/split-rule.txt" 2>&1
done
cat "$O/split-rule.txt"; xz -9 "$O/timeline-rule.txt"
sweep_potrf "4096 10240 16384" 3 15 rule DLA_POTRF_LATE_DEPTH=4 DLA_POTRF_LEAF_TAIL=2600 \
  > "$O/sweep.txt" 2>&1
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
sort -k4,4 -k3,3 "$O/sweep.txt" | awk '{print $4, $3, $5, $6, $2}'
cat "$O/gpu.txt" "$O/summary.txt" "$O/sweep.txt" "$O/split-rule.txt" 2>/dev/null > "$O/main.txt"
[ -f "$O/gpu-check-check.txt" ] && tail -40 "$O/gpu-check-check.txt" >> "$O/main.txt" && rm -f "$O/gpu-check-check.txt"
rm -f "$O/gpu.txt" "$O/summary.txt" "$O/sweep.txt" "$O/split-rule.txt" "$O/ctest.txt"
find "$O" -type f | sort
