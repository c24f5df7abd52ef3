#!/usr/bin/env bash
# Session 31, device calls 4-5: 128-row panel blocks (DLA_POTRF_PANEL_ROWS; call 4
# ran two rows per thread on the CUDA cores, call 5 potrf_panel_tc.cuh) with
# the side gate (as run then: "auto" was the default rule; now opt-in); A/B sweep, timeline, the Cholesky ctest entries, and
# memcheck / racecheck with every panel on 128-row blocks.
# Carry .carry (build.tar.xz from scripts/carry-build.sh, timeline.xz).
set -u
O="${OUT:-/tmp}"; mkdir -p "$O"
rm -rf build && tar xJf .carry/build.tar.xz
xz -dkf .carry/timeline.xz && chmod +x .carry/timeline
T=./.carry/timeline
for rep in 1 2 3; do
  for rows in auto 64 128; do  # "auto": the rule of potrf.cu, panel_rows
    echo "== rows=$rows rep $rep"
    DLA_POTRF_PANEL_ROWS=$rows $T -q 2048 3000 4096 5000 6144 8192
  done
done
DLA_POTRF_PANEL_ROWS=auto $T 4096 > "$O/timeline-rows.txt" 2>&1
grep "^==" "$O/timeline-rows.txt"
(cd build && timeout 300 ctest -R cholesky -j 10 --output-on-failure) > "$O/ctest.log" 2>&1
echo "ctest rc $?"; grep -E "tests passed|Failed|\*\*\*|Timeout" "$O/ctest.log" | tail -12
for tool in memcheck racecheck; do
  DLA_POTRF_PANEL_ROWS=128 DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 99 \
    build/tests/sanitize_test --gtest_filter='SanitizeCholesky*' > "$O/san-$tool.log" 2>&1
  echo "sanitize rows128 $tool: rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$O/san-$tool.log" | tr '\n' ' ')"
done
