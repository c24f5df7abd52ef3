#!/usr/bin/env bash
# Session 41, call 1: the next block column's update inside the fused panel
# (PanelFuse, potrf_panel.cuh; its first form, the loop column by column:
# branch exp/s41-panel-fuse, first commit's message): the cholesky ctest
# entries, memcheck and racecheck on SanitizeCholesky, A/B against the critical update kernel
# (DLA_POTRF_PANEL_UPDATE=0), stamps at 4096 both ways.
# Carry .carry (build.tar.xz with extra/tl_stamps).
set -u
tar xJf .carry/build.tar.xz
X=build/extra
O="$OUT"
(cd build && timeout 300 ctest -j 12 -R cholesky > "$O/ctest.txt" 2>&1)
grep -E "tests passed|Failed|\*\*\*" "$O/ctest.txt" | head -20
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool build/tests/sanitize_test --gtest_filter='SanitizeCholesky.*' > "$O/san_$tool.txt" 2>&1
  echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $O/san_$tool.txt | tr '\n' ' ')"
done
DLA_POTRF_NB=100 timeout 200 compute-sanitizer --tool memcheck build/tests/sanitize_test --gtest_filter='SanitizeCholesky.*' > "$O/san_nb100.txt" 2>&1
echo "memcheck nb100: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $O/san_nb100.txt | tr '\n' ' ')"
B="potrf --sizes 2048 3000 4096 5000 6144 8192 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for cfg in "DLA_POTRF_PANEL_UPDATE=0" "X=1"; do
      echo "== round $round $cfg"
      env $cfg timeout 100 build/apps/dla bench $B | grep "^potrf .*spotrf"
    done
  done
  for cfg in "DLA_POTRF_PANEL_UPDATE=0" "X=1"; do
    echo "== 16384 $cfg"
    env $cfg timeout 100 build/apps/dla bench potrf --sizes 16384 --variants tf32x3 --repeat 3 | grep "^potrf .*spotrf"
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '/^==/{print; next} {print $4, $5, $6, $7, $8, $9}'
for cfg in "DLA_POTRF_PANEL_UPDATE=0" "X=1"; do
  env $cfg timeout 60 $X/tl_stamps -q 4096 > "$O/stamps_${cfg%%=*}.txt" 2>&1
  grep -h "sum of\|median" "$O/stamps_${cfg%%=*}.txt"
done
