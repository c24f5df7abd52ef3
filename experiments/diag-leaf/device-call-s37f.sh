#!/usr/bin/env bash
# Session 37, call 6: after the side-SM rule change (potrf_side_sms:
# with tensor-core updates 120 of 132 SMs from 4096, all from 6144), the
# full ctest and the potrf bench of the gpu-check on the final build, plus
# the sizes between the bench's (3000, 5000, 6144), two runs.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt
for round in 1 2; do
  timeout 60 build/apps/dla bench potrf --sizes 3000 5000 6144 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-120
done > $OUT/mid.txt 2>&1
cat $OUT/mid.txt
