#!/usr/bin/env bash
# Session 30: the right-looking panel copies sub-panel s + 1 as soon as it is
# released (potrf_kernels.cuh), in one device call with the whole gpu-check.
# Prepare here:
#   cmake --build build -j2 && bash scripts/carry-build.sh
#   nvcc ... experiments/panel-tail/tail_probe.cu ... -o .carry/tail_probe   (see tail_probe.cu)
#   the same against the previous potrf_kernels.cuh (3e8f50b) -> .carry/tail_probe_old
#   device call, carry [".carry"]: bash experiments/panel-tail/device-run-prefetch.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
O="${OUT:-/tmp}"
rm -rf build && tar xJf .carry/build.tar.xz
for p in tail_probe tail_probe_old; do echo "== $p"; timeout 60 ./.carry/$p 0 96 | grep -E "hogs|diag:|chunk|tail"; done
for rep in 1 2; do
  timeout 120 build/apps/dla bench potrf --sizes 2048 4096 5000 6144 8192 --variants tf32x3 2>&1 \
    | grep -E "^potrf.*spotrf" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'
done
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
  GPU_CHECK_SUITES="gemm getrf potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" \
  timeout 420 bash scripts/gpu-check.sh > "$O/gpucheck.log" 2>&1
echo "gpu-check rc $?"; head -20 "$O/summary.txt" 2>/dev/null
