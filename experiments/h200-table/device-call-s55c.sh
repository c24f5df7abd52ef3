#!/usr/bin/env bash
# Session 55: the issue's H200 table and time split of main, in one call.
# Before: `make -C build -j2 && bash experiments/h200-table/prepare.sh`
# (main's build + its timeline as build/extra/timeline -> .carry).
# Run: `run` with `LIMIT=570 bash experiments/h200-table/device-call-s55c.sh`,
# kind nvidia-h200, carry [".carry"].
#   On an H200: the gpu-check of main (scripts/gpu-check.sh: test, sanitize,
#   bench potrf / getrf), then one traced spotrf at 4096 and 16384 and its
#   time split (experiments/timeline/split.py; timeline.cu now puts a marker
#   kernel before each traced run, which takes the first-launch stall that
#   session 54's trace counted as part of the factorization).
#   On any other card: only the trace and its split (~1 minute), so that a
#   call that gets an H100 costs little; the table waits for an H200.
# Predictions: H200 spotrf 4096 1.21-1.23 ms (1.24-1.26x, cuSOLVER ~1.52;
# session 52's 1.288-1.300 without the copier, which took 6% on an H100);
# 8192 ~1.7x, 16384 ~1.7x (61.5-62 TFLOP/s, 79% of SGEMM); every test and
# sanitizer clean. The split at 16384 without the stall: the bulk update
# absent ~1.1 ms before its first kernel (session 54: 1.76 with 0.69 of
# stall), ~3 ms in gaps, ~1.2 ms tail.
LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
cat "$O/gpu.txt"
trace_split() {
  timeout 90 "$B/extra/timeline" 4096 16384 > "$O/timeline.txt" 2>&1
  echo "timeline rc $? at ${SECONDS} s" >> "$O/gpu.txt"
  for lib in dla cusolver; do
    /opt/torch/.venv/bin/python3 experiments/timeline/split.py "$O/timeline.txt" --lib $lib >> "$O/split.txt" 2>&1
  done
  cat "$O/split.txt"
}
if grep -q H200 "$O/gpu.txt"; then
  gpu_check_carried 75 test,sanitize,bench check
  trace_split
  cat "$O/summary.txt" "$O/check/summary.txt"
  grep -E "^potrf +tf32x3 +(spotrf|sposv)" "$O/check/bench.log"
else
  echo "not an H200: the trace and split only"
  trace_split
fi
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/summary.txt" "$O/split.txt" 2>/dev/null > "$O/main.txt"
rm -f "$O/gpu.txt" "$O/summary.txt" "$O/split.txt"
xz -9 "$O/timeline.txt"
find "$O" -type f | sort
