#!/usr/bin/env bash
# Session 38, call 6 (final): the bulk update split by the rule
# (potrf_rest_split: where it runs on all SMs, n >= 6144); gpu-check test +
# bench on the final build (new ctest entries rest_split_forced,
# rest_unsplit; CholeskyHost.RestSplitRule), then one round of A/B at the
# sizes the rule splits, DLA_POTRF_REST_SPLIT unset / 0. Carry
# .carry/build.tar.xz.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt
grep -E "^potrf" $OUT/bench.log | cut -c1-110
for v in rule 0; do
  echo "== REST_SPLIT=$v"
  if [ $v = rule ]; then env -u DLA_POTRF_REST_SPLIT timeout 90 build/apps/dla bench potrf --sizes 6144 8192 16384 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  else DLA_POTRF_REST_SPLIT=0 timeout 90 build/apps/dla bench potrf --sizes 6144 8192 16384 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100; fi
done
