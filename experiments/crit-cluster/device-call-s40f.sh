#!/usr/bin/env bash
# Session 40, call 6: the split trapezoid again (DLA_POTRF_TRAP_SPLIT=3, an
# experiment knob), now with the side stream's part on the cluster kernel
# (call 2 had it on sgemmt's 128-tiles, ~40 us a wave) and only for groups of
# at most 4 panels. Correctness (cholesky device tests, also with deep groups
# at every size; memcheck on the sanitizer test with them), A/B, stamps.
# Carry .carry (build.tar.xz with extra/tl_stamps).
set -u
tar xJf .carry/build.tar.xz
X=build/extra
O="$OUT"
F='CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver:CholeskyDevice.LowLevelInfoAndUntouchedTriangle'
DLA_POTRF_TRAP_SPLIT=3 timeout 200 build/tests/cholesky_test --gtest_filter="$F" > "$O/t_split.txt" 2>&1 &
DLA_POTRF_TRAP_SPLIT=3 DLA_POTRF_EARLY_GROUPS=1 timeout 200 build/tests/cholesky_test --gtest_filter="$F" > "$O/t_split_early.txt" 2>&1 &
wait
for f in t_split t_split_early; do echo "$f: $(grep -E '^\[  (PASSED|FAILED) |refused' $O/$f.txt | tr '\n' ' ')"; done
DLA_POTRF_TRAP_SPLIT=3 DLA_POTRF_EARLY_GROUPS=1 timeout 150 compute-sanitizer --tool memcheck build/tests/sanitize_test \
  --gtest_filter='SanitizeCholesky.*' 2>&1 | grep -E "SUMMARY|PASSED|FAILED|refused"
B="potrf --sizes 2048 3000 4096 5000 6144 8192 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for cfg in "X=1" "DLA_POTRF_TRAP_SPLIT=3"; do
      echo "== round $round $cfg"
      env $cfg timeout 100 build/apps/dla bench $B 2>&1 | grep "^potrf .*spotrf\|refused"
    done
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '/^==/{print; next} /refused/{print; next} {print $4, $5, $6, $7, $8, $9}'
DLA_POTRF_TRAP_SPLIT=3 timeout 60 $X/tl_stamps -q 4096 > "$O/stamps_split.txt" 2>&1
grep -h "sum of\|median\|refused" "$O/stamps_split.txt"
sed -n 2,17p "$O/stamps_split.txt" | awk '{print $1, $(NF-1), $NF, $(NF-3)}' | tr '\n' ';'
