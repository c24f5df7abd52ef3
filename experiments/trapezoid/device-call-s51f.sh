#!/usr/bin/env bash
# Session 51, sixth call: the next trapezoid's panels on the side stream one
# at a time, every panel of the group but the last (DLA_POTRF_TRAP_PER_PANEL=1),
# against the half at once (the rule since call 5).
#   1. spotrf tf32x3 A/B at 3000-4352, three rounds; 2. a trace at 4096;
#   3. CholeskyDevice ctest entries with it (rule's groups, then forced on in
#   groups of 2 and 4); 4. memcheck on SanitizeCholesky with it in groups of 4.
# (DLA_POTRF_TRAP_PER_PANEL lived in 493498f and was removed in 6a48ca0.)
# (As run, gpu_line, ab_potrf and trace_potrf were inline (timeout 30 per bench run); the rows
# printed "<name> M" for VAR=M.)
# Run: `run` with `LIMIT=300 bash experiments/trapezoid/device-call-s51f.sh`, carry [".carry"].
LIMIT=${LIMIT:-300}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
ab_potrf DLA_POTRF_TRAP_PER_PANEL "0 1" "3000 3500 4096 4352" 3 > "$O/ab.txt"
trace_potrf DLA_POTRF_TRAP_PER_PANEL 1 "$O/trace.txt"
for env in "X=0" "DLA_POTRF_TRAP_HALF=1 DLA_POTRF_DEPTH=2" "DLA_POTRF_TRAP_HALF=1 DLA_POTRF_DEPTH=4"; do
  (cd $B && env DLA_POTRF_TRAP_PER_PANEL=1 $env DLA_EXPECT_GPU=1 timeout 50 ./tests/cholesky_test \
    --gtest_filter='CholeskyDevice.*' > "$O/gtest.txt" 2>&1; echo "cholesky_test [$env] rc $?" >> "$O/tests.txt"; tail -3 "$O/gtest.txt" >> "$O/tests.txt")
done
DLA_POTRF_TRAP_PER_PANEL=1 DLA_POTRF_TRAP_HALF=1 DLA_POTRF_DEPTH=4 DLA_EXPECT_GPU=1 timeout 60 \
  compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/sanitize_test \
  --gtest_filter='SanitizeCholesky*' > "$O/memcheck.txt" 2>&1
echo "memcheck (per panel, depth 4) rc $?" >> "$O/tests.txt"
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/ab.txt" "$O/tests.txt"
