#!/usr/bin/env bash
# Session 49: s48-pad's first GPU run, and its gpu-check (the merge gate).
# Prediction (session 48): spotrf 4097 (lda = n) from 1.77 to ~1.36 ms, ~1.4x
# cuSOLVER; 3001 / 6145 / 8193 gain likewise; 1025 / 2049 less sure.
#
# Run: `run` with `LIMIT=560 bash experiments/pad/device-call-s49.sh`, carry
# [".carry"] (scripts/carry-build.sh build on s48-pad). Steps:
#   1. bench potrf, DLA_POTRF_PAD=1 (the rule) against 0 (in place);
#   2. scripts/gpu-check.sh test,sanitize,bench (suites getrf potrf) on the
#      carried build: every GPU test, the sanitizers on SanitizeCholesky (the
#      only kernels the branch changes), the bench rows;
#   3. a second A/B round with more sizes, getrf at 4096 / 4097.
LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../common/device_call.sh"  # O, left, B (as run: these lines inline)
bench_round() {
  for pad in 1 0; do
    [ "$(left)" -gt 25 ] || break
    echo "== round $1 DLA_POTRF_PAD=$pad"
    DLA_POTRF_PAD=$pad timeout 25 $B/apps/dla bench potrf --sizes $2 \
      --variants tf32x3 --repeat 5 2>/dev/null | awk '/^potrf .*spotrf/{print $4, $5, $6, $7, $8, $NF}'
  done >> "$O/potrf-pad.txt" 2>&1
}
bench_round 1 "2049 3001 4096 4097 8193"
mkdir -p "$O/check"
OUT="$O/check" DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$B \
  GPU_CHECK_STEPS=test,sanitize,bench GPU_CHECK_SUITES="potrf getrf" \
  GPU_CHECK_SANITIZE_FILTER='SanitizeCholesky.*' \
  GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" \
  timeout $(( $(left) - 60 )) bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
echo "gpu-check rc $? at ${SECONDS} s" >> "$O/check/summary.txt"
bench_round 2 "1025 3001 4096 4097 6145 8193"
if [ "$(left)" -gt 30 ]; then
  timeout 25 $B/apps/dla bench getrf --sizes 4096 4097 --repeat 5 2>/dev/null |
    awk '/^getrf /{print $2, $3, $4, $5, $6, $7, $8}' > "$O/getrf-odd.txt" 2>&1
fi
echo "(end at ${SECONDS} s)" >> "$O/check/summary.txt"
cat "$O/check/summary.txt" "$O/potrf-pad.txt" "$O/getrf-odd.txt" 2>/dev/null
