#!/usr/bin/env bash
# Session 30, second device call: the leaf kernel's run (device-run.sh, logs
# in /tmp/lr) and then the whole gpu-check on the same carried build.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
O="${OUT:-/tmp}"
OUT=/tmp/lr bash experiments/diag-leaf/device-run.sh > "$O/leafrun.log" 2>&1
grep -vE "^ok|^potrf" "$O/leafrun.log" | head -60
grep -E "^potrf|== " "$O/leafrun.log" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'
DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
  GPU_CHECK_SUITES="gemm getrf potrf" GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" \
  timeout 420 bash scripts/gpu-check.sh > "$O/gpucheck.log" 2>&1
echo "gpu-check rc $?"; head -40 "$O/summary.txt" 2>/dev/null
