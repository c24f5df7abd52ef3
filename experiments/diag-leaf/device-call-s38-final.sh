#!/usr/bin/env bash
# Session 38, final call: the gpu-check on main's final build (the library
# changes since session 37: leaf_store_cols returns when c >= m), memcheck
# on the diagonal-block tests with the leaf kernel, and racecheck on the
# branch exp/diag-pipe's sanitize_test (carried as build/pipe/sanitize_test)
# after its per-pass failure words. Carry .carry/build.tar.xz.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt
{
DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/cholesky_test \
  --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot' \
  > /tmp/san.txt 2>&1; echo "leaf memcheck DiagonalBlockKernel:NaN:Subnormal rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
for tool in racecheck memcheck; do
  DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/pipe/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > /tmp/san.txt 2>&1; echo "exp/diag-pipe $tool SanitizeCholesky rc=$?"; grep -E "PASSED|FAILED" /tmp/san.txt; tail -1 /tmp/san.txt
done
} > $OUT/extra.txt 2>&1
cat $OUT/extra.txt
