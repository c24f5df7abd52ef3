#!/usr/bin/env bash
# Runs on branch exp/diag-pipe (the pipelined kernel is not on main; session 38).
# Session 38, call 2: potrf_diag_pipe_kernel (the leaf kernel pipelined:
# factor warps go from leaf to leaf with no block barrier, update warps
# apply each leaf beside them; cp.async load in three groups) as the float
# default where the leaf kernel is the rule. Checks: the Cholesky and
# sanitize ctest entries (new: leaf_unpiped_diag_kernel), memcheck,
# racecheck and synccheck on SanitizeCholesky, memcheck and racecheck on
# the diagonal-block tests. A/B: DLA_POTRF_DIAG_PIPE 1 / 0. Stamps at 4096.
# Prediction: a leaf pass ~1.5 us in place (now 2.5-3.6), leaf 0 starts
# ~1.5 us after the wait (now 3.1), the diagonal kernel's end ~15 us (now
# 25.9 with stamps), the panel's end ~20 us (now 27.6); spotrf 4096 -0.1 to
# -0.2 ms (now 1.428). Carry .carry/build.tar.xz (build/ with tl_stamps).
set -u
rm -rf build; tar xJf .carry/build.tar.xz
(cd build && DLA_EXPECT_GPU=1 timeout 400 ctest -R "cholesky|sanitize" -j 12 --output-on-failure) > $OUT/ctest-chol.txt 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Exception" $OUT/ctest-chol.txt | head -20
{
for tool in memcheck racecheck synccheck; do
  DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > /tmp/san.txt 2>&1; echo "pipe $tool SanitizeCholesky rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
done
for tool in memcheck racecheck; do
  DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/cholesky_test \
    --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot' \
    > /tmp/san.txt 2>&1; echo "pipe $tool DiagonalBlockKernel:NaN:Subnormal rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
done
for round in 1 2; do
  for v in 1 0; do
    echo "== PIPE=$v"
    DLA_POTRF_DIAG_PIPE=$v timeout 90 build/apps/dla bench potrf --sizes 1024 2048 3000 4096 6144 8192 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done
} > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
for v in 1 0; do DLA_POTRF_DIAG_PIPE=$v timeout 90 build/tl_stamps -q 4096 > "$OUT/stamps-pipe$v.txt" 2>&1; done
grep -h "median\|sum of" "$OUT"/stamps-*.txt
