#!/usr/bin/env bash
# Session 29: the fused panel with two rows per thread (potrf_kernels.cuh) on
# the device, in one call. Prepare here:
#   cmake --build build -j2 && bash scripts/carry-build.sh
#   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Isolvers/src/cuda \
#     -Icore/include experiments/panel-tail/tail_probe.cu build/core/libdla_core.a \
#     -o .carry/tail_probe
#   device call, carry [".carry"]: bash experiments/panel-pairs/device-run.sh
# 1. every cholesky ctest entry (both layouts: the panel_one_row_per_thread
#    entry runs DLA_POTRF_PANEL_PAIRS=0);
# 2. memcheck and racecheck on SanitizeCholesky with each layout;
# 3. the panel-tail probe with each layout, alone and next to 96 FMA hogs;
# 4. dla bench potrf, each layout twice, alternating, same binary;
# 5. DLA_POTRF_TRACE=1 at 4096 for each layout, after a warm-up.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
O="${OUT:-/tmp}"
rm -rf build && tar xJf .carry/build.tar.xz
(cd build && ctest -R cholesky_test -j 6 --output-on-failure) > "$O/ctest.log" 2>&1
echo "ctest rc $?"; grep -E "tests passed|Failed|\*\*\*" "$O/ctest.log" | tail -8
for run in "1 memcheck" "1 racecheck" "0 memcheck" "0 racecheck"; do
  set -- $run
  DLA_POTRF_PANEL_PAIRS=$1 DLA_EXPECT_GPU=1 compute-sanitizer --tool "$2" --error-exitcode 99 \
    build/tests/sanitize_test --gtest_filter='SanitizeCholesky*' > "$O/san.tmp" 2>&1
  echo "sanitize pairs=$1 $2: rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$O/san.tmp" | tr '\n' ' ')"
  cat "$O/san.tmp" >> "$O/sanitize.log"; rm -f "$O/san.tmp"
done
cuobjdump -sass -fun '_ZN3dla4cuda6detail18potrf_panel_kernelIfLi128ELi1EEEvPKT_PS3_lilbPKii' \
  build/apps/dla > "$O/panel-f128-r1.sass" 2>&1
for p in 1 0; do DLA_POTRF_PANEL_PAIRS=$p ./.carry/tail_probe 0 96; done > "$O/probe.txt" 2>&1
cat "$O/probe.txt"
for rep in 1 2; do
  for p in 1 0; do
    echo "== pairs=$p rep $rep"
    DLA_POTRF_PANEL_PAIRS=$p build/apps/dla bench potrf --sizes 2048 4096 5000 8192 16384 \
      --variants tf32x3 2>&1 | grep -E "^potrf.*(spotrf|sposv)"
  done
done > "$O/bench.txt"
cat "$O/bench.txt"
for p in 1 0; do
  DLA_POTRF_PANEL_PAIRS=$p build/apps/dla bench potrf --sizes 4096 --variants tf32x3 --repeat 20 > /dev/null 2>&1
  DLA_POTRF_PANEL_PAIRS=$p DLA_POTRF_TRACE=1 build/apps/dla bench potrf --sizes 4096 \
    --variants tf32x3 --repeat 1 > /dev/null 2> "$O/trace-$p.err"
  echo "trace pairs=$p: $(grep -c 'potrf trace' "$O/trace-$p.err") lines"
done
