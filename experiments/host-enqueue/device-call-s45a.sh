#!/usr/bin/env bash
# Session 45, call 1 (carry .carry: lu_test, trsm_test (main's kernels),
# lu_test_new, trsm_test_new (the sfmin fixes), enqueue_probe; xz).
#  1. the new subnormal-pivot device tests on main's kernels (expected to fail)
#  2. the same and the whole LuGpu / TrsmDevice suites with the fixes
#  3. enqueue_probe: does the host's enqueue rate bound spotrf?
#  4. are cuobjdump / nvdisasm there (SASS of the leaf kernel)?
set -u
O="${OUT:-/tmp/out}"; mkdir -p "$O"
cd .carry && for f in *.xz; do xz -dkf "$f"; chmod +x "${f%.xz}"; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export DLA_EXPECT_GPU=1
flt() { grep -vE '^\[ RUN|^\[       OK|^\[----------\]|^$' | head -${1:-60}; }
{
  echo "== main's kernels"
  timeout 200 ./lu_test --gtest_filter='LuGpu.Subnormal*' 2>&1 | flt 40
  timeout 200 ./trsm_test --gtest_filter='TrsmDevice.Subnormal*' 2>&1 | flt 40
  echo "== with the fixes"
  timeout 300 ./lu_test_new --gtest_filter='LuGpu.*' 2>&1 | flt
  timeout 300 ./trsm_test_new --gtest_filter='TrsmDevice.*' 2>&1 | flt
  DLA_FP32_GEMM=native timeout 300 ./lu_test_new --gtest_filter='LuGpu.Subnormal*' 2>&1 | flt 20
} > "$O/subnormal.txt" 2>&1
grep -E "^== |PASSED|FAILED  \]|tests ran" "$O/subnormal.txt" | head -30
timeout 120 ./enqueue_probe 1024 2048 3000 4096 5000 8192 2>&1 | tee "$O/enqueue.txt"
which cuobjdump nvdisasm 2>&1 | tee "$O/tools.txt"
