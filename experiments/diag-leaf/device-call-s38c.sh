#!/usr/bin/env bash
# Runs on branch exp/diag-pipe (the pipelined kernel is not on main; session 38).
# Session 38, call 3: the pipelined diagonal kernel after the fix of its
# failure path (a failing pivot in the last leaf stored columns past m:
# leaf_store_cols looped over rows * ncols with both negative). Sanitizer
# logs kept; the A/B again at more sizes; DLA_POTRF_TRACE=1 at 4096 (rest()
# start and end per group: is the early critical path waiting for the bulk
# update?); the bulk update's SM share below 96 at 3000-5000 (session 37's
# sweep stopped at 96; the early panels run two blocks per SM on the 36 SMs
# left, stamps of call 2). Carry .carry/build.tar.xz.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
(cd build && DLA_EXPECT_GPU=1 timeout 400 ctest -R "cholesky|sanitize" -j 12 --output-on-failure) > $OUT/ctest-chol.txt 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Exception" $OUT/ctest-chol.txt | head -20
{
for tool in memcheck racecheck synccheck; do
  DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > /tmp/san.txt 2>&1; echo "pipe $tool SanitizeCholesky rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
  [ "$tool" = racecheck ] && head -c 6000 /tmp/san.txt
done
for tool in memcheck racecheck; do
  DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/cholesky_test \
    --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot' \
    > /tmp/san.txt 2>&1; echo "pipe $tool DiagonalBlockKernel:NaN:Subnormal rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
  head -c 4000 /tmp/san.txt
done
} > $OUT/sanitize.txt 2>&1
grep -E "rc=|SUMMARY" $OUT/sanitize.txt
{
for round in 1 2; do
  for v in 1 0; do
    echo "== PIPE=$v"
    DLA_POTRF_DIAG_PIPE=$v timeout 90 build/apps/dla bench potrf --sizes 2048 4096 5000 6144 8192 10240 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done
for round in 1 2; do
  for sms in 96 88 80 72 64; do
    echo "== SIDE_SMS=$sms"
    DLA_POTRF_SIDE_SMS=$sms timeout 90 build/apps/dla bench potrf --sizes 3000 4096 5000 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done
} > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
DLA_POTRF_TRACE=1 timeout 60 build/apps/dla bench potrf --sizes 4096 --variants tf32x3 --repeat 1 > $OUT/trace4096.txt 2>&1
grep -c "potrf trace" $OUT/trace4096.txt
