#!/usr/bin/env bash
# Session 39, call 2 (branch exp/s39): the leaf kernel's form 2 (V2 + 16-byte
# loads of the block): the cholesky ctest entries with it, memcheck on the
# diagonal-block tests with it at every n, the probe alone, the A/B of forms
# 0 / 1 / 2 in place, the depth and bulk-update share re-checked with it, and
# its stamps. Carry .carry (build.tar.xz with extra/{tl_stamps,leaf_probe}).
set -u
tar xJf .carry/build.tar.xz
X=build/extra
O="$OUT"
export DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3
(cd build && DLA_POTRF_LEAF_V2=2 timeout 300 ctest -j 12 -R cholesky 2>&1 | tail -6) > "$O/ctest-form2.txt"
cat "$O/ctest-form2.txt"
B="potrf --sizes 2048 3000 4096 5000 8192 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for v in 0 1 2; do
      echo "== round $round LEAF_V2=$v"
      DLA_POTRF_LEAF_V2=$v timeout 100 build/apps/dla bench $B | grep "^potrf .*spotrf"
    done
  done
  for e in DLA_POTRF_DEPTH=1 DLA_POTRF_DEPTH=3 DLA_POTRF_SIDE_SMS=88 DLA_POTRF_SIDE_SMS=104 DLA_POTRF_SIDE_SMS=112; do
    echo "== LEAF_V2=2 $e"
    env DLA_POTRF_LEAF_V2=2 $e timeout 60 build/apps/dla bench potrf --sizes 3000 4096 5000 --variants tf32x3 --repeat 5 | grep "^potrf .*spotrf"
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt"
{
  for m in 128 100 37; do echo "== leaf probe m=$m"; timeout 60 $X/leaf_probe $m; done
  echo "== memcheck leaf probe m=37, 128"
  timeout 90 compute-sanitizer --tool memcheck $X/leaf_probe 37 1 | grep -E "ERROR SUMMARY"
  timeout 90 compute-sanitizer --tool memcheck $X/leaf_probe 128 1 | grep -E "ERROR SUMMARY"
  echo "== racecheck leaf probe m=128"
  timeout 150 compute-sanitizer --tool racecheck $X/leaf_probe 128 1 | grep -E "RACECHECK SUMMARY"
  echo "== memcheck cholesky_test diagonal-block and low-level tests, leaf kernel form 2 at every n"
  DLA_POTRF_LEAF_V2=2 DLA_POTRF_DIAG_LEAF=1 timeout 240 compute-sanitizer --tool memcheck build/tests/cholesky_test \
    --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.LowLevelInfoAndUntouchedTriangle:CholeskyDevice.NaNFailsAtItsPivot' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED|tests ran"
} > "$O/probe-sanitize.txt" 2>&1
cat "$O/probe-sanitize.txt" | grep -v "^  leaf\|update warps"
DLA_POTRF_LEAF_V2=2 timeout 100 $X/tl_stamps -q 4096 > "$O/stamps-form2.txt" 2>&1
grep -h "leaf phases\|sum of\|median" "$O/stamps-form2.txt"
