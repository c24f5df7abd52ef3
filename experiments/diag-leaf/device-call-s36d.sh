#!/usr/bin/env bash
# Session 36, call 4: the leaf kernel with leaf warps and update warps
# (the next leaf's columns first, the rest beside the next leaf): alone
# (leaf_probe), the Cholesky ctest entries, sanitizers and the A/B against the
# tile kernel. Carry .carry/build.tar.xz (scripts/carry-build.sh) and
# .carry/leaf_probe.
set -u
chmod +x .carry/leaf_probe
for m in 128 100 64; do .carry/leaf_probe $m; done > $OUT/probe.txt 2>&1; cat $OUT/probe.txt
rm -rf build; tar xJf .carry/build.tar.xz
(cd build && timeout 280 ctest -R cholesky -j 10 --output-on-failure) > $OUT/ctest-chol.txt 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-chol.txt | head -20
for tool in memcheck racecheck synccheck; do
  DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > $OUT/san.txt 2>&1; echo "$tool SanitizeCholesky rc=$?"; tail -1 $OUT/san.txt
done > $OUT/sanitize.txt
DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/cholesky_test \
  --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot' \
  > $OUT/san.txt 2>&1; echo "memcheck DiagonalBlockKernel etc rc=$?" >> $OUT/sanitize.txt; tail -1 $OUT/san.txt >> $OUT/sanitize.txt
DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 build/tests/cholesky_test \
  --gtest_filter='CholeskyDevice.DiagonalBlockKernel' > $OUT/san.txt 2>&1; echo "racecheck DiagonalBlockKernel rc=$?" >> $OUT/sanitize.txt; tail -1 $OUT/san.txt >> $OUT/sanitize.txt
cat $OUT/sanitize.txt
for v in 1 0 1 0; do echo "== LEAF=$v"; DLA_POTRF_DIAG_LEAF=$v timeout 60 build/apps/dla bench potrf --sizes 1024 2048 4096 8192 \
  --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-110; done > $OUT/ab-leaf.txt 2>&1
cat $OUT/ab-leaf.txt
