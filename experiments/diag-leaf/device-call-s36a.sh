#!/usr/bin/env bash
# Session 36, call 1 (the first form of the kernel, then the default): potrf_diag_leaf_kernel (the float diagonal block in
# 16-column leaves) as the default: the Cholesky ctest entries, the
# sanitizers on it, and the end-to-end A/B against the tile kernel
# (DLA_POTRF_DIAG_LEAF=0). Carry .carry (scripts/carry-build.sh).
set -u
rm -rf build; tar xJf .carry/build.tar.xz
(cd build && timeout 280 ctest -R cholesky -j 10 --output-on-failure) > $OUT/ctest-chol.txt 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-chol.txt | head -20
for tool in memcheck racecheck synccheck; do
  DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > $OUT/san-$tool.txt 2>&1; echo "$tool SanitizeCholesky rc=$?"; tail -2 $OUT/san-$tool.txt
done >> $OUT/sanitize.txt
DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/cholesky_test \
  --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot' \
  > $OUT/san-diag.txt 2>&1; echo "memcheck DiagonalBlockKernel rc=$?" >> $OUT/sanitize.txt; tail -2 $OUT/san-diag.txt >> $OUT/sanitize.txt
cat $OUT/sanitize.txt
for v in 1 0 1 0; do echo "== LEAF=$v"; DLA_POTRF_DIAG_LEAF=$v timeout 60 build/apps/dla bench potrf --sizes 1024 2048 4096 8192 \
  --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-110; done > $OUT/ab-leaf.txt 2>&1
cat $OUT/ab-leaf.txt
