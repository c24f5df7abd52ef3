#!/usr/bin/env bash
# Session 28's device call for the right-looking fused panel
# (potrf_panel_rl_kernel): the tail probe (both panel kernels, alone and next
# to 96 SM-wide hogs), the Cholesky device tests, memcheck and racecheck on
# the Cholesky sanitizer test, an A/B against DLA_POTRF_PANEL_RL=0 (same
# binary, alternating, twice) and a look-ahead trace of each at n = 4096.
# Needs the carried build (scripts/carry-build.sh) and the probe built here:
#   nvcc ... experiments/panel-tail/tail_probe.cu build/core/libdla_core.a -o .carry/tail_probe
# carry [".carry/build.tar.xz", ".carry/tail_probe"]; $OUT collects the logs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
./.carry/tail_probe 0 96 | tee "$OUT/probe.txt"
rm -rf build && tar xJf .carry/build.tar.xz
B=build/apps/dla
export DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3
(cd build && DLA_EXPECT_GPU=1 timeout 300 ctest -R "cholesky" -j 6 --output-on-failure) \
  > "$OUT/ctest.log" 2>&1
echo "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
sed -n '/The following tests FAILED/,$p' "$OUT/ctest.log" | head -20
for tool in memcheck racecheck; do
  DLA_EXPECT_GPU=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 \
    build/tests/sanitize_test --gtest_filter='SanitizeCholesky*' > "$OUT/san.log" 2>&1
  echo "sanitize $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$OUT/san.log" | tr '\n' ' ')"
done
"$B" bench potrf --sizes 4096 --repeat 30 --variants tf32x3 > /dev/null 2>&1  # warm-up
for rep in 1 2; do
  for rl in 1 0; do
    DLA_POTRF_PANEL_RL=$rl "$B" bench potrf --sizes 2048,3000,4096,5000,8192 \
      --variants tf32x3 2>/dev/null | grep -E "spotrf|sposv|dpotrf" \
      | awk -v t="rl=$rl run $rep" '{print t, $3, $4, $5, $8}' | tee -a "$OUT/ab.txt"
  done
done
for rl in 1 0; do
  DLA_POTRF_TRACE=1 DLA_POTRF_PANEL_RL=$rl "$B" bench potrf --sizes 4096 --repeat 1 \
    --variants tf32x3 > /dev/null 2> "$OUT/trace-$rl.log"
done
