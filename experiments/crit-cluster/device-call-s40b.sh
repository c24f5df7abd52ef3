#!/usr/bin/env bash
# Session 40, call 2: the cluster rule (clusters for updates of <= SMs / 2
# tiles), and the split trapezoid (DLA_POTRF_TRAP_SPLIT, an experiment knob):
# its correctness (cholesky device tests, also with deep groups in double),
# A/B against main's path (DLA_POTRF_CRIT_CLUSTER=0), stamps at 4096.
# Carry .carry (build.tar.xz with extra/tl_stamps).
set -u
tar xJf .carry/build.tar.xz
X=build/extra
O="$OUT"
F='CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver:CholeskyDevice.LowLevelInfoAndUntouchedTriangle'
{
  DLA_POTRF_TRAP_SPLIT=2 timeout 200 build/tests/cholesky_test --gtest_filter="$F" > "$O/t_split2.txt" 2>&1 &
  DLA_POTRF_TRAP_SPLIT=2 DLA_POTRF_EARLY_GROUPS=1 timeout 200 build/tests/cholesky_test --gtest_filter="$F" > "$O/t_split2_early.txt" 2>&1 &
  wait
}
for f in t_split2 t_split2_early; do echo "$f: $(grep -E '^\[  (PASSED|FAILED) ' $O/$f.txt | tr '\n' ' ')"; done
B="potrf --sizes 2048 3000 4096 5000 6144 8192 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for cfg in "DLA_POTRF_CRIT_CLUSTER=0" "X=1" "DLA_POTRF_CRIT_CLUSTER_TILES=132" "DLA_POTRF_TRAP_SPLIT=3" "DLA_POTRF_TRAP_SPLIT=2"; do
      echo "== round $round $cfg"
      env $cfg timeout 100 build/apps/dla bench $B | grep "^potrf .*spotrf"
    done
  done
  for cfg in "DLA_POTRF_CRIT_CLUSTER=0" "X=1" "DLA_POTRF_TRAP_SPLIT=3"; do
    echo "== 16384 $cfg"
    env $cfg timeout 100 build/apps/dla bench potrf --sizes 16384 --variants tf32x3 --repeat 3 | grep "^potrf .*spotrf"
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '/^==/{print; next} {print $4, $5, $6, $7, $8, $9}'
for cfg in "X=1" "DLA_POTRF_TRAP_SPLIT=3"; do
  env $cfg timeout 60 $X/tl_stamps -q 4096 > "$O/stamps_${cfg%%=*}.txt" 2>&1
  grep -h "sum of\|median" "$O/stamps_${cfg%%=*}.txt"
done
