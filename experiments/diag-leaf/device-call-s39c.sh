#!/usr/bin/env bash
# Session 39, call 3 (branch exp/s39): the fused panel's deferred updates
# (DLA_POTRF_PANEL_DEFER=1) with the leaf kernel's form 2: the cholesky
# ctest entries, memcheck and racecheck on SanitizeCholesky, the A/B against
# form 2 alone, the depth around 4096-6144, and the stamps.
# Carry .carry (build.tar.xz with extra/tl_stamps).
set -u
tar xJf .carry/build.tar.xz
X=build/extra
O="$OUT"
export DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3
export DLA_POTRF_LEAF_V2=2
(cd build && DLA_POTRF_PANEL_DEFER=1 timeout 300 ctest -j 12 -R cholesky 2>&1 | tail -4) > "$O/ctest-defer.txt"
cat "$O/ctest-defer.txt"
{
  for tool in memcheck racecheck; do
    echo "== $tool SanitizeCholesky, defer"
    DLA_POTRF_PANEL_DEFER=1 DLA_EXPECT_GPU=1 timeout 200 compute-sanitizer --tool $tool build/tests/sanitize_test \
      --gtest_filter='SanitizeCholesky*' 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED"
  done
} > "$O/sanitize.txt" 2>&1
cat "$O/sanitize.txt"
B="potrf --sizes 2048 3000 4096 5000 6144 8192 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for v in 0 1; do
      echo "== round $round PANEL_DEFER=$v"
      DLA_POTRF_PANEL_DEFER=$v timeout 100 build/apps/dla bench $B | grep "^potrf .*spotrf"
    done
  done
  for round in 1 2; do
    for d in 2 3; do
      echo "== round $round defer, DEPTH=$d"
      DLA_POTRF_PANEL_DEFER=1 DLA_POTRF_DEPTH=$d timeout 100 build/apps/dla bench potrf --sizes 4096 4608 5000 5500 6000 --variants tf32x3 --repeat 5 | grep "^potrf .*spotrf"
    done
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '{print $1,$3,$4,$5,$9,$10}'
DLA_POTRF_PANEL_DEFER=1 timeout 100 $X/tl_stamps -q 4096 > "$O/stamps-defer.txt" 2>&1
grep -h "leaf phases.*median\|sum of\|median" "$O/stamps-defer.txt"
grep -A32 "panel chunks" "$O/stamps-defer.txt" | tail -8
