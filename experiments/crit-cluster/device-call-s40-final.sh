#!/usr/bin/env bash
# Session 40, call 3 (main, the final library): scripts/gpu-check.sh test,
# sanitize, bench; memcheck and racecheck of the Cholesky sanitizer test with
# clusters of 2 (the default, 4, runs in the sanitize step); the cluster rule
# against one CTA per tile at the sizes calls 1-2 did not time.
# Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > "$OUT/gpucheck.log" 2>&1
cat "$OUT/summary.txt"
grep -h "^potrf " "$OUT/bench.log" | awk '{print $2,$3,$4,$5,$6,$7,$8,$9}'
{
  for tool in memcheck racecheck; do
    echo "== $tool, clusters of 2"
    DLA_POTRF_CRIT_CLUSTER=2 timeout 150 compute-sanitizer --tool $tool build/tests/sanitize_test \
      --gtest_filter='SanitizeCholesky.*' 2>&1 | grep -E "SUMMARY|PASSED|FAILED"
  done
  for cfg in "X=1" "DLA_POTRF_CRIT_CLUSTER=0"; do
    echo "== $cfg"
    env $cfg timeout 100 build/apps/dla bench potrf --sizes 1024 2048 3000 4096 12288 16384 --variants tf32x3 --repeat 3 | grep "^potrf .*spotrf"
  done
} > "$OUT/extra.txt" 2>&1
grep -v "^\[" "$OUT/extra.txt" | awk '/^==/{print; next} /SUMMARY|PASSED|FAILED/{print; next} {print $4, $5, $6, $7, $8, $9}'
