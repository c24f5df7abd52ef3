# Session 35, final call: the gpu-check on the final build, plus the wgmma
# kernel's small triangles under memcheck and the rolled panel's A/B.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
  GPU_CHECK_SUITES="potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > $OUT/gpucheck.log 2>&1
cat $OUT/summary.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/gemm_test \
  --gtest_filter='GemmGpuTriangular.*' > $OUT/memcheck-gemmt.txt 2>&1; echo "memcheck gemmt rc=$?"; tail -3 $OUT/memcheck-gemmt.txt
for r in 0 1 0 1; do echo "== ROLLED=$r"; DLA_POTRF_PANEL_ROLLED=$r timeout 60 build/apps/dla bench potrf --sizes 4096 8192 12288 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100; done > $OUT/ab-rolled.txt 2>&1
cat $OUT/ab-rolled.txt
ls $OUT
