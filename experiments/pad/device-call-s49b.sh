#!/usr/bin/env bash
# Session 49, second call: main after the s48-pad merge (its GPU code is the
# carried s48-pad build's). Meant for the H200 (the owed gpu-check of main's
# LU / trsm / Cholesky code); ratios hold on whatever card comes.
#   1. ncu: the two copy_triangle launches of spotrf n = 4097 (lda = n), their
#      time and DRAM throughput (the A/B gave ~100 us over 4096, ~45 predicted);
#   2. scripts/gpu-check.sh test,sanitize,bench (suites potrf getrf), every
#      sanitizer test;
#   3. bench potrf at misaligned orders (the copy taken by the rule).
# Run: `run` with `LIMIT=540 bash experiments/pad/device-call-s49b.sh`, carry [".carry"].
LIMIT=${LIMIT:-540}
. "$(dirname "$0")/../common/device_call.sh"  # O, left, B (as run: these lines inline)
timeout 60 ncu --kernel-name regex:copy_triangle --launch-count 4 \
  --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum \
  $B/apps/dla bench potrf --sizes 4097 --variants tf32x3 --repeat 1 > "$O/ncu-copy.txt" 2>&1
echo "ncu rc $?" >> "$O/ncu-copy.txt"
mkdir -p "$O/check"
OUT="$O/check" DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$B \
  GPU_CHECK_STEPS=test,sanitize,bench GPU_CHECK_SUITES="potrf getrf" \
  GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" \
  timeout $(( $(left) - 35 )) bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
echo "gpu-check rc $? at ${SECONDS} s" >> "$O/check/summary.txt"
if [ "$(left)" -gt 25 ]; then
  timeout 25 $B/apps/dla bench potrf --sizes 3001 4096 4097 6145 8193 --variants tf32x3 \
    --repeat 5 2>/dev/null | awk '/^potrf .*spotrf/{print $4, $5, $6, $7, $8, $NF}' > "$O/potrf-odd.txt"
fi
echo "(end at ${SECONDS} s)" >> "$O/check/summary.txt"
cat "$O/check/summary.txt" "$O/potrf-odd.txt"; grep -E "copy_triangle|gpu__time|dram__|rc " "$O/ncu-copy.txt"
