#!/usr/bin/env bash
# Session 45's prepared device call (not run in session 45: no device was
# lent). Branch s45-sfmin, carry [".carry"], built here with
#   bash scripts/carry-build.sh build /tmp/extra/{enqueue_probe,lu_test_main,trsm_test_main}
# .carry/build.tar.xz holds the branch's build and, in build/extra/:
#   lu_test_main, trsm_test_main: the new subnormal tests built against
#     main's kernels (dd4ba3f), for the failing-first evidence;
#   enqueue_probe (experiments/host-enqueue/enqueue_probe.cu).
# One call, ~7 minutes:
#   1. the subnormal device tests on main's kernels (expected to FAIL: Inf/NaN)
#   2. scripts/gpu-check.sh on the branch: test (every ctest entry, the new
#      LuGpu.SubnormalPivot*, TrsmDevice.SubnormalDiagonal among them),
#      sanitize (memcheck, racecheck; sanitize_test has the sfmin paths),
#      bench potrf and getrf (the LU and trsm kernels changed: no slowdown
#      expected; the fast paths are the same instructions plus a uniform branch)
#   3. enqueue_probe: the host time of a spotrf call, and its GPU time with
#      the stream held until the call is queued (host-bound if shorter)
set -u
O="${OUT:-/tmp/out}"; mkdir -p "$O"
tar xJf .carry/build.tar.xz
X=build/extra
export DLA_EXPECT_GPU=1
flt() { grep -vE '^\[ RUN|^\[       OK|^\[----------\]|^$' | head -${1:-40}; }
{
  echo "== main's kernels (dd4ba3f): expected to fail"
  timeout 120 $X/lu_test_main --gtest_filter='LuGpu.Subnormal*' 2>&1 | flt 40
  timeout 120 $X/trsm_test_main --gtest_filter='TrsmDevice.Subnormal*' 2>&1 | flt 40
} > "$O/subnormal-main.txt" 2>&1
grep -E "^== |PASSED|FAILED  \]" "$O/subnormal-main.txt" | head -12
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build \
  GPU_CHECK_STEPS=test,sanitize,bench GPU_CHECK_SUITES="potrf getrf" \
  GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
tail -15 "$O/gpu-check.txt"
timeout 120 $X/enqueue_probe 1024 2048 3000 4096 5000 8192 2>&1 | tee "$O/enqueue.txt"
