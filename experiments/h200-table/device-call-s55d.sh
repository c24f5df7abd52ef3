#!/usr/bin/env bash
# Session 55, call 2: the large-n tail and start knobs (potrf_blocking.cpp,
# session 55: DLA_POTRF_LEAF_TAIL, DLA_POTRF_LATE_DEPTH / _TRAILING,
# DLA_POTRF_FIRST_DEPTH), after the gpu-check of this build (its defaults
# are main's rules: the issue's table) on whatever card comes.
# Before: `bash experiments/h200-table/prepare.sh`.
# Run: `run` with `LIMIT=590 bash experiments/h200-table/device-call-s55d.sh`,
# any kind, carry [".carry"].
# Why (call 1's trace at 16384, H100, results/s55c-*): the last 20 steps
# take 1152 us (57.6 us a step) with nothing beside them; a step there is
# the tile diagonal kernel (28.7 us; the leaf kernel runs ~22 at 4096) and
# the next block column's left-looking update, whose k grows to 1152 in a
# group of 10 while its grid shrinks to 3-19 blocks (30-51 us); the first
# group's 12 steps run 1045 us before the first bulk update.
# Predictions (16384, ~23.5 ms): LEAF_TAIL 2600 / 5000 -0.1 to -0.3 ms
# (20-40 steps, ~6 us each); LATE_DEPTH 2 (groups of 2 in the last 2600
# columns) -0.2 to -0.5 ms (the left-looking updates' k <= 256), 4 about
# half that; FIRST_DEPTH 2 / 4: -0.3 to -0.6 ms if the bulk update at
# k = 256 / 512 keeps its rate, else a loss; 12288 / 8192: LATE_DEPTH
# within +-1% (their late groups are 6 and 4 deep), FIRST_DEPTH as above
# but smaller; LEAF_TAIL no change there (the leaf kernel runs already).
LIMIT=${LIMIT:-580}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
cat "$O/gpu.txt"
# The gpu-check of this build on whatever card comes (the device tool: an
# H100 serves for reported timings, with the vendor baseline in the same
# run), then the issue's time split on this card (the rules, 4096 and 16384).
gpu_check_carried 120 test,sanitize,bench check
cat "$O/summary.txt" "$O/check/summary.txt"
grep -E "^potrf +tf32x3 +(spotrf|sposv)" "$O/check/bench.log"
timeout 60 "$B/extra/timeline" 4096 16384 > "$O/timeline-rule.txt" 2>&1
for lib in dla cusolver; do
  /opt/torch/.venv/bin/python3 experiments/timeline/split.py "$O/timeline-rule.txt" --lib $lib \
    >> "$O/split-rule.txt" 2>&1
done
cat "$O/split-rule.txt"; xz -9 "$O/timeline-rule.txt"
sweep_potrf "8192 12288 16384" 2 25 rule DLA_POTRF_LEAF_TAIL=2600 DLA_POTRF_LEAF_TAIL=5000 \
  DLA_POTRF_LATE_DEPTH=2 DLA_POTRF_LATE_DEPTH=4 DLA_POTRF_LATE_DEPTH=2,DLA_POTRF_LATE_TRAILING=4000 \
  DLA_POTRF_FIRST_DEPTH=2 DLA_POTRF_FIRST_DEPTH=4 \
  DLA_POTRF_LEAF_TAIL=5000,DLA_POTRF_LATE_DEPTH=2,DLA_POTRF_FIRST_DEPTH=4 > "$O/sweep.txt" 2>&1
echo "sweep end at ${SECONDS} s" >> "$O/gpu.txt"
sort -k4,4 -k3,3 "$O/sweep.txt" | awk '{print $4, $3, $5, $6, $2}'
if [ "$(left)" -gt 20 ]; then
  DLA_POTRF_LEAF_TAIL=5000 DLA_POTRF_LATE_DEPTH=2 DLA_POTRF_FIRST_DEPTH=4 \
    timeout 30 "$B/extra/timeline" 16384 > "$O/timeline.txt" 2>&1
  /opt/torch/.venv/bin/python3 experiments/timeline/split.py "$O/timeline.txt" > "$O/split.txt" 2>&1
  cat "$O/split.txt"; xz -9 "$O/timeline.txt"
fi
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/summary.txt" "$O/sweep.txt" "$O/split-rule.txt" "$O/split.txt" 2>/dev/null > "$O/main.txt"
# At most 8 files come back: the check's five, main.txt and the two traces.
[ -f "$O/gpu-check-check.txt" ] && tail -40 "$O/gpu-check-check.txt" >> "$O/main.txt" && rm -f "$O/gpu-check-check.txt"
rm -f "$O/gpu.txt" "$O/summary.txt" "$O/sweep.txt" "$O/split-rule.txt" "$O/split.txt" "$O/ctest.txt"
find "$O" -type f | sort
