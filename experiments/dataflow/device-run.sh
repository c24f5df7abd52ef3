#!/usr/bin/env bash
# The device run of the dataflow probe (docs/cholesky-log.md, sessions 32-33), in
# one call. Build here first (no GPU needed), then carry .carry:
#
#   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/dataflow_potrf.cu \
#     -lcusolver -o .carry/dataflow_potrf
#   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/solve_probe.cu \
#     -o .carry/solve_probe
#   # device call, carry [".carry/dataflow_potrf", ".carry/solve_probe"]:
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
# fetch_probe 16 / 8 / 4: session 33 measured the rolled factorizations 4-5x
# slower; solve_probe: the solve's forms alone.
echo "=== solve_probe" >> "$LOG"
timeout 30 "$BIN/solve_probe" 0 2 3 >> "$LOG" 2>&1 || echo "solve_probe: rc $?" >> "$LOG"
for cfg in "0 0 0" "0 0 2" "2 0 2" "2 1 2"; do
  set -- $cfg
  echo "=== DF_AHEAD=$1 DF_WARM=$2 DF_ROLL=$3" >> "$LOG"
  DF_AHEAD=$1 DF_WARM=$2 DF_ROLL=$3 timeout 30 "$BIN/dataflow_potrf" 2048 4096 \
    >> "$LOG" 2>&1 || echo "rc $?" >> "$LOG"
done
for tool in memcheck racecheck synccheck; do
  echo "=== $tool (DF_AHEAD=2 DF_WARM=1 DF_ROLL=2, n = 512; solve_probe 3)" >> "$LOG"
  DF_AHEAD=2 DF_WARM=1 DF_ROLL=2 timeout 90 compute-sanitizer --tool "$tool" \
    "$BIN/dataflow_potrf" 512 2>&1 | tail -3 >> "$LOG"
  timeout 60 compute-sanitizer --tool "$tool" "$BIN/solve_probe" 3 2>&1 | tail -2 >> "$LOG"
done
grep -E "^===|^solve form|max \|L|^ahead|j 16\.\.31|j 32\.\.47|      solve:|products left|SUMMARY|rc " "$LOG"
