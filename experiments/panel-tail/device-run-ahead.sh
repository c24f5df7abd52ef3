#!/usr/bin/env bash
# Session 29: the fused panel in right-looking order (DLA_POTRF_PANEL_AHEAD=1)
# against the left-looking order (=0; the default until session 30), in one
# device call. Prepare here:
#   cmake --build build -j2 && bash scripts/carry-build.sh
#   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Isolvers/src/cuda \
#     -Icore/include experiments/panel-tail/tail_probe.cu build/core/libdla_core.a \
#     -o .carry/tail_probe
#   device call, carry [".carry"]: bash experiments/panel-tail/device-run-ahead.sh
# 1. every cholesky ctest entry (the panel_ahead ones run the new order);
# 2. dla bench potrf, each order twice, alternating, same binary;
# 3. memcheck and racecheck on SanitizeCholesky in the new order;
# 4. the panel-tail probe in each order, alone and next to 96 FMA hogs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
O="${OUT:-/tmp}"
rm -rf build && tar xJf .carry/build.tar.xz
(cd build && ctest -R cholesky_test -j 10 --output-on-failure) > "$O/ctest.log" 2>&1
echo "ctest rc $?"; grep -E "tests passed|Failed|\*\*\*" "$O/ctest.log" | tail -8
for rep in 1 2; do
  for a in 1 0; do
    echo "== ahead=$a rep $rep"
    DLA_POTRF_PANEL_AHEAD=$a build/apps/dla bench potrf --sizes 2048 4096 8192 --variants tf32x3 \
      2>&1 | grep -E "^potrf.*spotrf"
  done
done
for tool in memcheck racecheck; do
  DLA_POTRF_PANEL_AHEAD=1 DLA_EXPECT_GPU=1 compute-sanitizer --tool "$tool" --error-exitcode 99 \
    build/tests/sanitize_test --gtest_filter='SanitizeCholesky*' > "$O/san-$tool.log" 2>&1
  echo "sanitize ahead $tool: rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$O/san-$tool.log" | tr '\n' ' ')"
done
for a in 1 0; do DLA_POTRF_PANEL_AHEAD=$a ./.carry/tail_probe 0 96; done
