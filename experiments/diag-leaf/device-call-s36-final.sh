#!/usr/bin/env bash
# Session 36, final call: the gpu-check on the final build (the tile kernel
# stays the default; the ctest entry blocking_leaf_diag_kernel runs the
# opt-in leaf kernel), the sanitizers with DLA_POTRF_DIAG_LEAF=1, the leaf
# kernel alone (leaf_probe), and the end-to-end A/B.
# Carry .carry/build.tar.xz (scripts/carry-build.sh) and .carry/leaf_probe.xz.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
(cd .carry && xz -dkf leaf_probe.xz && chmod +x leaf_probe)
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt
{
for tool in memcheck racecheck synccheck; do
  DLA_POTRF_DIAG_LEAF=1 DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > /tmp/san.txt 2>&1; echo "LEAF=1 $tool SanitizeCholesky rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
done
DLA_POTRF_DIAG_LEAF=1 DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/cholesky_test \
  --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot' \
  > /tmp/san.txt 2>&1; echo "LEAF=1 memcheck DiagonalBlockKernel:NaNFailsAtItsPivot:SubnormalPivot rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
for m in 128 100; do .carry/leaf_probe $m; done
for v in 1 0 1 0; do echo "== LEAF=$v"; DLA_POTRF_DIAG_LEAF=$v timeout 90 build/apps/dla bench potrf --sizes 2048 3000 4096 6144 8192 16384 \
  --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-110; done
} > $OUT/leaf.txt 2>&1
cat $OUT/leaf.txt
