#!/usr/bin/env bash
# Session 38, call 5: each group's bulk update in two launches (the group
# after next's columns first; the next trapezoid waits for that part only:
# potrf.cu, rest_split_enabled), the default in this build. The gpu-check
# (test + bench) on it, then A/B DLA_POTRF_REST_SPLIT 1 / 0, two rounds.
# Prediction: the ~35 us wait before step 4 at 4096 (and smaller ones at
# the next early group ends) shrinks; spotrf 4096 -20 to -50 us, 2048 and
# 3000 -1 to -4%, 8192 and 16384 within 1%. Carry .carry/build.tar.xz.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt
grep -E "^potrf .*tf32x3 .*spotrf" $OUT/bench.log | cut -c1-100
{
for round in 1 2; do
  for v in 1 0; do
    echo "== REST_SPLIT=$v"
    DLA_POTRF_REST_SPLIT=$v timeout 120 build/apps/dla bench potrf --sizes 1024 2048 3000 4096 5000 6144 8192 16384 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done
} > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
