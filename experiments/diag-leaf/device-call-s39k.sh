#!/usr/bin/env bash
# Session 39, call 12 (main, the final library): depth + 2 again from 12288.
# gpu-check test + bench, then the rule against no deeper groups at
# 12288 / 14336 / 16384. Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > "$OUT/gpucheck.log" 2>&1
cat "$OUT/summary.txt"
grep -h "^potrf " "$OUT/bench.log" | awk '{print $2,$3,$4,$5,$6,$7,$8,$9}'
grep -h "^potrf .*spotrf n=16384" "$OUT/bench.log" | sed 's/  */ /g'
{
  for cfg in "X=0" "DLA_POTRF_EARLY_GROUPS=0"; do
    echo "== $cfg"
    env $cfg timeout 120 build/apps/dla bench potrf --sizes 12288 14336 16384 --variants tf32x3 --repeat 3 | grep "^potrf .*spotrf"
  done
} > "$OUT/ab.txt" 2>&1
grep -v "^\[" "$OUT/ab.txt" | awk '/^==/{print; next} {print $4, $5, $6, $7, $8, $9}'
