#!/usr/bin/env bash
# Session 51, fifth call: the half trapezoids as a rule (potrf_trap_half:
# spotrf on the tensor cores below 4608) on branch s51-trap-first.
#   1. the rule's bound: spotrf tf32x3 at 3500-5000, DLA_POTRF_TRAP_HALF=0 / 1,
#      two rounds;
#   2. memcheck on SanitizeCholesky with the half forced in groups of 2
#      (DLA_POTRF_TRAP_HALF=1 DLA_POTRF_DEPTH=2: the sanitizer sizes have no
#      group of 2 by default);
#   3. scripts/gpu-check.sh test,sanitize,bench (suites potrf getrf), every
#      sanitizer test.
# (As run, gpu_line and ab_potrf were inline (timeout 30 per bench run); the rows
# printed "<name> M" for VAR=M.)
# Run: `run` with `LIMIT=590 bash experiments/trapezoid/device-call-s51e.sh`, carry [".carry"].
LIMIT=${LIMIT:-590}
. "$(dirname "$0")/../common/device_call.sh"
ab_potrf DLA_POTRF_TRAP_HALF "0 1" "3500 4096 4352 4608 5000" 2 > "$O/bound.txt"
DLA_POTRF_TRAP_HALF=1 DLA_POTRF_DEPTH=2 DLA_EXPECT_GPU=1 timeout 60 compute-sanitizer --tool memcheck \
  --error-exitcode 99 $B/tests/sanitize_test --gtest_filter='SanitizeCholesky*' > "$O/memcheck-half.txt" 2>&1
echo "memcheck (half forced, depth 2) rc $?" >> "$O/memcheck-half.txt"
gpu_check_carried 10
cat "$O/bound.txt"; tail -2 "$O/memcheck-half.txt"; cat "$O/check/summary.txt"
