#!/usr/bin/env bash
# Session 30: potrf_diag_leaf_kernel (DLA_POTRF_DIAG_LEAF=1) against the tile
# kernel, in one device call. Prepare here:
#   cmake --build build -j2 && bash scripts/carry-build.sh
#   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Isolvers/src/cuda -Icore/include \
#     experiments/diag-leaf/leaf_probe.cu -o .carry/leaf_probe
#   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Isolvers/src/cuda -Icore/include \
#     experiments/panel-tail/tail_probe.cu build/core/libdla_core.a -o .carry/tail_probe
#   device call, carry [".carry"]: bash experiments/diag-leaf/device-run.sh
# 1. the leaf probe: correctness against float64, time alone, stamps;
# 2. every Cholesky ctest entry (diag_leaf runs the new kernel);
# 3. memcheck and racecheck on SanitizeCholesky with the new kernel;
# 4. dla bench potrf, each kernel twice, alternating, same binary;
# 5. the panel-tail probe with each kernel, alone and next to 96 FMA hogs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
O="${OUT:-/tmp}"
rm -rf build && tar xJf .carry/build.tar.xz
timeout 120 ./.carry/leaf_probe > "$O/leaf_probe.log" 2>&1
echo "leaf_probe rc $?"; grep -vE "^ok" "$O/leaf_probe.log" | head -30
(cd build && timeout 400 ctest -R "[Cc]holesky" -j 12 --output-on-failure) > "$O/ctest.log" 2>&1
echo "ctest rc $?"; grep -E "tests passed|Failed|\*\*\*|Timeout" "$O/ctest.log" | tail -12
for tool in memcheck racecheck; do
  DLA_POTRF_DIAG_LEAF=1 DLA_EXPECT_GPU=1 timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 99 \
    build/tests/sanitize_test --gtest_filter='SanitizeCholesky*' > "$O/san-$tool.log" 2>&1
  echo "sanitize leaf $tool: rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$O/san-$tool.log" | tr '\n' ' ')"
done
for rep in 1 2; do
  for a in 1 0; do
    echo "== leaf=$a rep $rep"
    DLA_POTRF_DIAG_LEAF=$a timeout 100 build/apps/dla bench potrf --sizes 2048 4096 5000 8192 --variants tf32x3 \
      2>&1 | grep -E "^potrf.*spotrf"
  done
done
for a in 1 0; do DLA_POTRF_DIAG_LEAF=$a timeout 60 ./.carry/tail_probe 0 96; done
