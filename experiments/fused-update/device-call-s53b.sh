#!/usr/bin/env bash
# Needs experiments/fused-update/fused-update.patch (made against 04952c7, before the copier
# warp; apply it there: git checkout 04952c7 && git apply ...) and a build of that tree.
# Session 53, call 2 (branch s53-fused-update): the fused next-column update
# (DLA_POTRF_FUSED_UPDATE=1): at a group's first step no update kernel runs;
# the next diagonal kernel applies the panel to its block (3xTF32 mma.sync,
# 20 units on 16 warps) and the next panel kernel to its rows (CUDA cores,
# in the ~10 us before its first sub-panel arrives).
# Prediction (4096: 13 group-first steps, 3 early + 10 late): per such step
# the update kernel (~4-6 us in place), one hand-off (~1.4 us, pdl_probe) and
# the separate load of the block (~1.8) leave the chain, and the diagonal
# kernel's syrk (~2-3.5 us) joins it: -3 to -5 us a step, 4096 -40 to -65 us
# (1.23-1.25 ms), 3000 -2 to -4%, 8192 -1% (fewer, longer steps), 2048 none
# (depth 1, no group-first steps). The usual miss is 2-3x.
# Run: `run` with `LIMIT=560 bash experiments/fused-update/device-call-s53b.sh`, carry [".carry"].
LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
# Smoke: one run each way (a hang shows here, within 30 s).
for v in 0 1; do
  DLA_POTRF_FUSED_UPDATE=$v timeout 30 "$B/apps/dla" bench potrf --sizes 4096 --variants tf32x3 \
    --repeat 3 2>&1 | grep -E "^potrf .*spotrf|error|rror" >> "$O/smoke.txt"
  echo "smoke $v rc ${PIPESTATUS[0]} at ${SECONDS} s" >> "$O/smoke.txt"
done
sweep_potrf "2048 3000 4096 5000 8192" 3 330 rule DLA_POTRF_FUSED_UPDATE=1 \
  DLA_POTRF_FUSED_UPDATE=1,DLA_POTRF_FUSED_UPDATE_BLOCKS=40 > "$O/sweep.txt"
echo "sweep end at ${SECONDS} s" >> "$O/gpu.txt"
# Correctness: every cholesky ctest entry (the two new ones force the path).
(cd "$B" && DLA_EXPECT_GPU=1 DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 \
  timeout $(( $(left) - 110 )) ctest -R cholesky -j 8 --output-on-failure) > "$O/ctest.txt" 2>&1
echo "ctest rc $? at ${SECONDS} s" >> "$O/gpu.txt"
# The sanitizers over the fused path (n = 1100 in groups of 2: blocks 1, 3, 5, 7).
for tool in memcheck racecheck; do
  DLA_POTRF_FUSED_UPDATE=1 DLA_POTRF_DEPTH=2 DLA_EXPECT_GPU=1 timeout $(( $(left) - 8 )) \
    compute-sanitizer --tool $tool --error-exitcode 99 $B/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky*' > "$O/san-$tool.txt" 2>&1 &
done
wait
for tool in memcheck racecheck; do
  echo "$tool: $(tail -3 "$O/san-$tool.txt" | tr '\n' ' ')" >> "$O/gpu.txt"
done
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/smoke.txt" "$O/sweep.txt"; grep -E "tests passed|tests failed|Failed|\*\*\*" "$O/ctest.txt" | head -20
