#!/usr/bin/env bash
# Prepared in session 36, NOT YET RUN (branch exp/panel-bcast): the first
# device call for the fused panel's broadcast layout (DLA_POTRF_PANEL_BCAST=1,
# potrf_panel.cuh), alone and with the leaf diagonal kernel. Build here
# (cd build && make), then scripts/carry-build.sh; carry .carry/build.tar.xz.
# Prediction (docs/cholesky-log.md, session 36, items 2-4): the panel's updates
# from ~1.25 to ~0.45 us per chunk (3 wavefronts per column instead of 9),
# the solve from 1.5-1.8 to ~0.7 us; late steps at 4096 end ~2.5 us earlier
# with the tile kernel and ~5.5 us with the leaf kernel; spotrf 4096 -0.1 to
# -0.2 ms with both. For the per-chunk stamps, build tl_stamps from this
# branch as experiments/timeline/device-run-stamps.sh says.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
(cd build && timeout 300 ctest -R cholesky -j 10 --output-on-failure) > $OUT/ctest-chol.txt 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-chol.txt | head -20
{
for env in "DLA_POTRF_PANEL_BCAST=1" "DLA_POTRF_PANEL_BCAST=1 DLA_POTRF_DIAG_LEAF=1"; do
  for tool in memcheck racecheck synccheck; do
    env $env DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
      --gtest_filter='SanitizeCholesky.*' > /tmp/san.txt 2>&1; echo "$env $tool rc=$?"; tail -1 /tmp/san.txt
  done
done
for round in 1 2; do
  for cfg in "0 0" "1 0" "0 1" "1 1"; do
    set -- $cfg; echo "== BCAST=$1 LEAF=$2"
    DLA_POTRF_PANEL_BCAST=$1 DLA_POTRF_DIAG_LEAF=$2 timeout 90 build/apps/dla bench potrf --sizes 2048 4096 8192 16384 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done
} > $OUT/bcast.txt 2>&1
cat $OUT/bcast.txt
