#!/usr/bin/env bash
# Session 37, call 8 (final): call 7 showed that a second green-context
# partition in one process slows the runs on it, so potrf_side_sms keeps
# one share (96 of 132 SMs below 6144, all SMs from 6144, for either kind of
# update). The full ctest and the gpu-check's potrf bench on the final
# build, and the sizes between the bench's (3000, 5000, 6144), two runs.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt
for round in 1 2; do
  timeout 60 build/apps/dla bench potrf --sizes 3000 5000 6144 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-120
done > $OUT/mid.txt 2>&1
cat $OUT/mid.txt
