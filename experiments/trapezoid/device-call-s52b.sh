#!/usr/bin/env bash
# Prepared in session 51; ran in session 52 (call 1, H100; results/s52b-ab-h100.txt):
# no gain, not merged (docs/cholesky-log.md, session 52). The half
# trapezoids' device signal (DLA_POTRF_HALF_SIGNAL=1: the side stream's half
# waits for a word the next block column's update stores after its wait for
# the panels, instead of an event recorded between the panel and that update).
# Prediction: the event breaks the programmatic overlap of panel and update at
# each half step (~3 us by the traced runs), 13 half steps at 4096: -10 to -40
# us there, 3000 -5 to -20, 4352 -10 to -30; no change from 4608 (no halves).
#   1. smoke: one spotrf 4096 with the signal, 20 s (a hang stops here and the
#      rest runs without the signal);
#   2. A/B, signal 0 / 1, four rounds at 3000 / 4096 / 4352;
#   3. the new ctest entries (trap_half_signal*) and memcheck + racecheck of
#      SanitizeCholesky with the signal in groups of 2;
#   4. scripts/gpu-check.sh test,sanitize,bench (potrf getrf) with what is left.
# The library change is experiments/trapezoid/half-signal.patch (branch
# s51-half-signal, which does not outlive the session): on a branch,
# `git apply experiments/trapezoid/half-signal.patch`, build, carry-build.
# Run: `run` with `LIMIT=590 bash experiments/trapezoid/device-call-s52b.sh`, carry [".carry"].
LIMIT=${LIMIT:-590}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
if DLA_POTRF_HALF_SIGNAL=1 timeout 20 $B/apps/dla bench potrf --sizes 4096 --variants tf32x3 \
     --repeat 1 > "$O/smoke.txt" 2>&1; then
  echo "smoke ok at ${SECONDS} s" >> "$O/gpu.txt"
  ab_potrf DLA_POTRF_HALF_SIGNAL "0 1" "3000 4096 4352" 4 > "$O/ab.txt"
  (cd $B && timeout 150 ctest -j 8 -R "trap_half_signal" > "$O/ctest-signal.txt" 2>&1
   echo "ctest signal rc $?" >> "$O/ctest-signal.txt")
  for tool in memcheck racecheck; do
    DLA_POTRF_HALF_SIGNAL=1 DLA_POTRF_TRAP_HALF=1 DLA_POTRF_DEPTH=2 DLA_EXPECT_GPU=1 timeout 90 \
      compute-sanitizer --tool $tool --error-exitcode 99 $B/tests/sanitize_test \
      --gtest_filter='SanitizeCholesky*' > "$O/san-$tool.txt" 2>&1
    echo "$tool (signal, depth 2) rc $?" >> "$O/ctest-signal.txt"
  done
else
  echo "smoke FAILED rc $? at ${SECONDS} s (the signal hangs or fails; the rest without it)" >> "$O/gpu.txt"
fi
gpu_check_carried 10
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/ab.txt" 2>/dev/null; tail -4 "$O/ctest-signal.txt" 2>/dev/null; cat "$O/check/summary.txt"
