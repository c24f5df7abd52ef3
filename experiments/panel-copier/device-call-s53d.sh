#!/usr/bin/env bash
# Session 53, call 4 (branch s53-panel-copier, as it ran: the copier opt-in then, the
# default since; DLA_POTRF_PANEL_COPIER=1 is the default now): the fused panel with a copier
# warp (DLA_POTRF_PANEL_COPIER=1, potrf_panel_copier.cuh).
# Prediction (call 3's stamps, 4096 on an H100): the panel's chain per chunk
# loses the copy (1.3-1.8 us), ~3-3.5 us against the diagonal kernel's ~4.5-5
# us between releases, so the panel no longer lags; the tail after the
# diagonal kernel's end from ~5 us (late steps) and 10-12 (early steps beside
# the bulk update) to ~3-3.5: 4096 -30 to -80 us (1.22-1.27 ms), 3000 and 5000
# -2 to -5%, 8192 -1 to -2%, 16384 small (tile diagonal kernel, same panel).
# The factor the same bit for bit (bitwise.py).
# Run: `run` with `LIMIT=570 bash experiments/panel-copier/device-call-s53d.sh`, carry [".carry"].
LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
for v in 0 1; do
  DLA_POTRF_PANEL_COPIER=$v timeout 30 "$B/apps/dla" bench potrf --sizes 4096 --variants tf32x3 \
    --repeat 3 2>&1 | grep -E "^potrf .*spotrf|rror" >> "$O/smoke.txt"
  echo "smoke $v rc ${PIPESTATUS[0]} at ${SECONDS} s" >> "$O/smoke.txt"
done
sweep_potrf "2048 3000 4096 5000 8192 16384" 4 420 rule DLA_POTRF_PANEL_COPIER=1 > "$O/sweep.txt"
echo "sweep end at ${SECONDS} s" >> "$O/gpu.txt"
timeout 90 /opt/torch/.venv/bin/python3 experiments/panel-copier/bitwise.py "$B/apps/dla" /tmp 4096 3001 > "$O/bitwise.txt" 2>&1
echo "bitwise rc $? at ${SECONDS} s" >> "$O/gpu.txt"
for v in 0 1; do
  DLA_POTRF_PANEL_COPIER=$v timeout 40 "$B/extra/timeline" -q 4096 > "$O/stamps-copier$v.txt" 2>&1
done
echo "stamps at ${SECONDS} s" >> "$O/gpu.txt"
(cd "$B" && DLA_EXPECT_GPU=1 DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 \
  timeout $(( $(left) - 100 )) ctest -R cholesky -j 8 --output-on-failure) > "$O/ctest.txt" 2>&1
echo "ctest rc $? at ${SECONDS} s" >> "$O/gpu.txt"
for tool in memcheck racecheck synccheck; do
  DLA_POTRF_PANEL_COPIER=1 DLA_EXPECT_GPU=1 timeout $(( $(left) - 8 )) \
    compute-sanitizer --tool $tool --error-exitcode 99 $B/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky*' > "$O/san-$tool.txt" 2>&1 &
done
wait
for tool in memcheck racecheck synccheck; do
  echo "$tool: $(grep -E 'SUMMARY|PASSED|FAILED' "$O/san-$tool.txt" | tr '\n' ' ')" >> "$O/gpu.txt"
done
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/smoke.txt" "$O/sweep.txt" "$O/bitwise.txt"
grep -h "median\|sum of" "$O"/stamps-*.txt; grep -E "tests passed|tests failed|Failed  " "$O/ctest.txt" | head
