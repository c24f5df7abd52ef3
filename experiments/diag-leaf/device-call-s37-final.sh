#!/usr/bin/env bash
# Session 37, final call: the gpu-check on the final build (float defaults:
# the fused panel's broadcast layout, the leaf diagonal kernel up to 12288),
# plus the sanitizers on the non-default float kernels: the tile diagonal
# kernel (DLA_POTRF_DIAG_LEAF=0) and the shuffled panel
# (DLA_POTRF_PANEL_BCAST=0), and memcheck on the diagonal-kernel tests with
# the tile kernel. Carry .carry/build.tar.xz (scripts/carry-build.sh).
set -u
rm -rf build; tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt
{
for env in "DLA_POTRF_DIAG_LEAF=0" "DLA_POTRF_PANEL_BCAST=0"; do
  for tool in memcheck racecheck synccheck; do
    env $env DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
      --gtest_filter='SanitizeCholesky.*' > /tmp/san.txt 2>&1; echo "$env $tool SanitizeCholesky rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
  done
done
DLA_POTRF_DIAG_LEAF=0 DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/cholesky_test \
  --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot' \
  > /tmp/san.txt 2>&1; echo "LEAF=0 memcheck DiagonalBlockKernel:NaNFailsAtItsPivot:SubnormalPivot rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
} > $OUT/extra.txt 2>&1
cat $OUT/extra.txt
