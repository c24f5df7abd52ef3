#!/usr/bin/env bash
# Session 56, call 3: the stretch goal (85% of our SGEMM at 16384, ~21.7 ms on
# the H200; main runs 22.82-22.95). The look-ahead's knobs at 14336 / 16384
# with session 55's late groups and leaf tail as rules, three interleaved
# rounds on the H200 (spotrf tf32x3, `dla bench potrf --repeat 10`).
# Run: `run` with `LIMIT=200 bash experiments/h200-table/device-call-s56b.sh`,
# kind nvidia-h200, carry [".carry"] (prepare.sh's).
# Predictions: every knob within +-1% of the rule (each was tuned before the
# late groups; they change the middle groups, not the start's 1.0 ms or the
# 2.7 ms of waits between groups); the leaf kernel throughout (DIAG_LEAF=1)
# +0.5% (session 54: +0.3-0.5%); a shallower early extra (1) fewer
# long chains but more gaps: +-0.5%; extra 4: +0.5-1%.
LIMIT=${LIMIT:-200}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"; cat "$O/gpu.txt"
sweep_potrf "14336 16384" 3 10 rule DLA_POTRF_EARLY_EXTRA=1 DLA_POTRF_EARLY_EXTRA=4 \
  DLA_POTRF_EARLY_TRAILING=6000 DLA_POTRF_DIAG_LEAF=1 DLA_POTRF_REST_SPLIT=0 \
  DLA_POTRF_CRIT_CLUSTER_TILES=128 DLA_POTRF_SIDE_SMS=124 > "$O/sweep.txt" 2>&1
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
sort -k4,4 -k3,3 "$O/sweep.txt" | awk '{print $4, $3, $5, $6, $2}'
cat "$O/gpu.txt" "$O/sweep.txt" > "$O/main.txt"; rm -f "$O/gpu.txt" "$O/sweep.txt"
