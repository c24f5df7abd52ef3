#!/usr/bin/env bash
# The device run of the dataflow probe (docs/cholesky.md, sessions 32-33), in
# one call. Build here first (no GPU needed), then carry .carry:
#
#   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/dataflow_potrf.cu \
#     -lcusolver -o .carry/dataflow_potrf
#   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/fetch_probe.cu \
#     -o .carry/fetch_probe
#   # device call, carry [".carry/dataflow_potrf", ".carry/fetch_probe"]:
#   bash experiments/dataflow/device-run.sh
#
# Every step has its own timeout, so a hang costs seconds, not the call. The
# full output goes to $OUT/dataflow-v8.txt; the summary lines are printed.
set -u
OUT="${OUT:-/tmp/dataflow-out}"
mkdir -p "$OUT"
LOG="$OUT/dataflow.txt"
BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.carry"
: > "$LOG"
for froll in 0; do  # 16 8 4: session 33 measured them 4-5x slower
  echo "=== fetch_probe $froll" >> "$LOG"
  timeout 30 "$BIN/fetch_probe" "$froll" >> "$LOG" 2>&1 || echo "fetch_probe $froll: rc $?" >> "$LOG"
done
for cfg in "0 0 0 0" "0 1 0 0" "2 0 0 0" "2 1 0 0" "4 1 0 0"; do
  set -- $cfg
  echo "=== DF_AHEAD=$1 DF_WARM=$2 DF_ROLL=$3 DF_FROLL=$4" >> "$LOG"
  DF_AHEAD=$1 DF_WARM=$2 DF_ROLL=$3 DF_FROLL=$4 timeout 30 "$BIN/dataflow_potrf" 2048 4096 \
    >> "$LOG" 2>&1 || echo "rc $?" >> "$LOG"
done
for tool in memcheck racecheck synccheck; do
  echo "=== $tool (DF_AHEAD=2 DF_WARM=1, n = 512)" >> "$LOG"
  DF_AHEAD=2 DF_WARM=1 timeout 90 compute-sanitizer --tool "$tool" \
    "$BIN/dataflow_potrf" 512 2>&1 | tail -3 >> "$LOG"
done
grep -E "^===|max \|L|^ahead|j 16\.\.31|j 32\.\.47|      solve:|products left|SUMMARY|rc " "$LOG"
