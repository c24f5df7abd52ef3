#!/usr/bin/env bash
# Session 39, call 4 (branch exp/s39, leaf kernel form 2): group depth per
# phase (DLA_POTRF_DEPTH_EARLY / DLA_POTRF_EARLY_PCT: deeper groups while the
# bulk update bounds the early steps) against the rule and uniform depths,
# and the bulk update's share at 104 SMs; the cholesky device tests under one
# schedule. Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
O="$OUT"
export DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3
export DLA_POTRF_LEAF_V2=2
(DLA_POTRF_DEPTH_EARLY=3 DLA_POTRF_EARLY_PCT=50 timeout 200 build/tests/cholesky_test \
   --gtest_filter='CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.LargeSizes:CholeskyDevice.MatchesCusolver' 2>&1 | tail -3) > "$O/test-early.txt"
cat "$O/test-early.txt"
B="potrf --sizes 3000 4096 5000 6144 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for cfg in "X=0" "DLA_POTRF_DEPTH=3" "DLA_POTRF_DEPTH_EARLY=3 DLA_POTRF_EARLY_PCT=50" \
               "DLA_POTRF_DEPTH_EARLY=3 DLA_POTRF_EARLY_PCT=30" "DLA_POTRF_DEPTH_EARLY=4 DLA_POTRF_EARLY_PCT=30" \
               "DLA_POTRF_DEPTH_EARLY=4 DLA_POTRF_EARLY_PCT=50" "DLA_POTRF_SIDE_SMS=104"; do
      echo "== round $round $cfg"
      env $cfg timeout 100 build/apps/dla bench $B | grep "^potrf .*spotrf"
    done
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '{print $1,$3,$4,$5,$9,$10,$13}'
