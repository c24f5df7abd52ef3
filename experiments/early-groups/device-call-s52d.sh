#!/usr/bin/env bash
# Session 52, call 3 (the last of the session's device time): the rule
# potrf_trap_half_panels = (group depth + 1) / 2 (call 2: 3000 -2.5% with 2 of
# a group of 3 panels on the side stream) against 1 panel (the old rule's
# choice for groups of 3) at 2800-4352; then, with the half trapezoids in
# place, the A/B switches session 50 swept at 4096 without them; then the
# gpu-check of this library (test and bench), and the sanitizers over the
# new rule's path.
# Prediction: the rule -1 to -3% at 2800-3800 (groups of 3), parity at 4096
# and 4352 (groups of 4: 2 either way); the switches within +-1%.
# Run: `run` with `LIMIT=570 bash experiments/early-groups/device-call-s52d.sh`, carry [".carry"].
LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
sweep_potrf "2800 3000 3500 3800 4096 4352" 3 505 rule DLA_POTRF_TRAP_HALF_PANELS=1 > "$O/sweep.txt"
sweep_potrf "4096 4352" 3 500 rule DLA_POTRF_SIDE_GATE=0 DLA_POTRF_REST_SPLIT=1 \
  DLA_POTRF_PANEL_AHEAD=0 DLA_POTRF_CRIT_CLUSTER_TILES=0 \
  DLA_POTRF_DEPTH=3,DLA_POTRF_EARLY_GROUPS=1,DLA_POTRF_EARLY_EXTRA=1 \
  DLA_POTRF_DEPTH=1,DLA_POTRF_EARLY_GROUPS=1,DLA_POTRF_EARLY_EXTRA=3 > "$O/sweep-switches.txt"
echo "sweeps end at ${SECONDS} s" >> "$O/gpu.txt"
gpu_check_carried 140 test,bench check
# The sanitizers over the new rule's path (2 of 3 panels on the side stream:
# uniform groups of 3 with the half forced); call 2 ran every sanitizer test
# clean on the same kernels with the old rule.
for tool in memcheck racecheck; do
  [ "$(left)" -gt 20 ] || break
  DLA_POTRF_TRAP_HALF=1 DLA_POTRF_DEPTH=3 DLA_EXPECT_GPU=1 timeout $(( $(left) - 5 )) \
    compute-sanitizer --tool $tool --error-exitcode 99 $B/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky*' > "$O/san-$tool.txt" 2>&1
  echo "$tool SanitizeCholesky (half forced, groups of 3) rc $? at ${SECONDS} s" >> "$O/summary.txt"
done
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/sweep.txt" "$O/sweep-switches.txt" "$O/summary.txt" "$O/check/summary.txt"
