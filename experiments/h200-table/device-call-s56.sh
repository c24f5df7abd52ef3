#!/usr/bin/env bash
# Session 56, call 1: the gpu-check of main (the late groups and the leaf
# tail now rules) on whatever card comes: the issue's table. Then the issue's
# time split (4096, 16384) and three interleaved rounds of spotrf at 4096 /
# 10240 / 16384 under the rules and two knobs (the marginal size's spread).
# Before: `bash experiments/h200-table/prepare.sh`.
# Run: `run` with `LIMIT=590 bash experiments/h200-table/device-call-s56.sh`,
# kind nvidia-h200, carry [".carry"]. It ran with LIMIT=520 and a reserve of
# 110 s: on the H200 ctest took 253 s (204 on an H100) and the check hit its
# timeout in the sanitize step (189 s), which a second call ran with the bench;
# the check needs ~470 s there, hence 590 and 70 now. Its lines were folded
# into potrf_table and split_potrf (experiments/common/device_call.sh) after
# the run; the commands are the same.
# Predictions: H100 as session 55's call 8 / 10 (4096 1.25-1.30x, 16384
# 22.9-23.2 ms); H200: 4096 1.20-1.26x (session 52's 1.17-1.18x plus the
# copier's ~6%), 16384 ~1.7x.
LIMIT=${LIMIT:-590}
. "$(dirname "$0")/../common/device_call.sh"
potrf_table 70
split_potrf timeline-rule "4096 16384"
sweep_potrf "4096 10240 16384" 3 15 rule DLA_POTRF_LATE_DEPTH=4 DLA_POTRF_LEAF_TAIL=2600 \
  > "$O/sweep.txt" 2>&1
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
sort -k4,4 -k3,3 "$O/sweep.txt" | awk '{print $4, $3, $5, $6, $2}'
cat "$O/gpu.txt" "$O/summary.txt" "$O/sweep.txt" "$O/split-timeline-rule.txt" 2>/dev/null > "$O/main.txt"
[ -f "$O/gpu-check-check.txt" ] && tail -40 "$O/gpu-check-check.txt" >> "$O/main.txt" && rm -f "$O/gpu-check-check.txt"
rm -f "$O/gpu.txt" "$O/summary.txt" "$O/sweep.txt" "$O/split-timeline-rule.txt"
find "$O" -type f | sort
