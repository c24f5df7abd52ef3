#!/usr/bin/env bash
# Session 36, last call: the fused panel's right-looking updates fully
# unrolled (update32, potrf_panel.cuh): the gpu-check on that build, the
# per-chunk stamps at 4096 (both diagonal kernels), and spotrf with the leaf
# kernel. Carry .carry/build.tar.xz and .carry/tl_stamps.xz.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
(cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps)
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt; grep -E "^potrf .*tf32x3 .*spotrf" $OUT/bench.log | cut -c1-100
{
for v in 1 0; do DLA_POTRF_DIAG_LEAF=$v timeout 60 .carry/tl_stamps -q 4096; done
echo "== LEAF=1 bench"; DLA_POTRF_DIAG_LEAF=1 timeout 60 build/apps/dla bench potrf --sizes 2048 4096 8192 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
} > $OUT/extra.txt 2>&1
grep -E "median|sum of|^potrf" $OUT/extra.txt
