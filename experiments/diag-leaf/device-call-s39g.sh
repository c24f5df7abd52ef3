#!/usr/bin/env bash
# Session 39, call 7 (main, the final library before its gpu-check): the
# early groups against none (DLA_POTRF_EARLY_GROUPS=0), the bulk update's
# share with them, memcheck on the leaf kernel's scalar-load path (odd lda)
# and 16-byte path with partial quads, and the stamps at 4096.
# Carry .carry (build.tar.xz with extra/{tl_stamps,leaf_probe}).
set -u
tar xJf .carry/build.tar.xz
X=build/extra
O="$OUT"
B="potrf --sizes 2048 3000 4096 5000 6000 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for cfg in "X=0" "DLA_POTRF_EARLY_GROUPS=0"; do
      echo "== round $round $cfg"
      env $cfg timeout 100 build/apps/dla bench $B | grep "^potrf .*spotrf"
    done
  done
  for s in 88 104 112; do
    echo "== DLA_POTRF_SIDE_SMS=$s"
    DLA_POTRF_SIDE_SMS=$s timeout 100 build/apps/dla bench potrf --sizes 3000 4096 5000 --variants tf32x3 --repeat 5 | grep "^potrf .*spotrf"
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '{print $1,$3,$4,$5,$9,$10,$13}'
{
  echo "== leaf probe m=128, 100"; $X/leaf_probe_main 128 | head -3; $X/leaf_probe_main 100 | head -3
  echo "== memcheck, leaf kernel at every n: diagonal-block, low-level (lda = n + 3), NaN tests"
  DLA_POTRF_DIAG_LEAF=1 timeout 240 compute-sanitizer --tool memcheck build/tests/cholesky_test \
    --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.LowLevelInfoAndUntouchedTriangle:CholeskyDevice.NaNFailsAtItsPivot' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
} > "$O/sanitize.txt" 2>&1
cat "$O/sanitize.txt"
timeout 100 $X/tl_stamps -q 4096 > "$O/stamps.txt" 2>&1
grep -h "leaf phases.*median\|sum of\|median" "$O/stamps.txt"
