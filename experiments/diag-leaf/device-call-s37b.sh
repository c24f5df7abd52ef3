#!/usr/bin/env bash
# Session 37, call 2: the broadcast panel as the float default and the leaf
# kernel by potrf_leaf_diag(n) (2048..8192). Checks: the Cholesky ctest
# entries (new: tile_diag_kernel, panel_shuffled*, panel_rowsolve*),
# sanitizers on the opt-in row solve (DLA_POTRF_PANEL_ROWSOLVE=1). A/B:
# row solve against the blocked solve; the leaf rule's edges (leaf 0 / 1 at
# 1024, 3000, 6144, 10240, 12288). Stamps at 4096, blocked and row solve.
# Prediction (row solve): the solve's arithmetic per chunk from ~1.3 us to
# ~0.5 us; spotrf 4096 -0.03 to -0.08 ms.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
(cd build && timeout 400 ctest -R cholesky -j 12 --output-on-failure) > $OUT/ctest-chol.txt 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-chol.txt | head -20
{
for tool in memcheck racecheck synccheck; do
  DLA_POTRF_PANEL_ROWSOLVE=1 DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > /tmp/san.txt 2>&1; echo "rowsolve $tool rc=$?"; tail -1 /tmp/san.txt
done
for round in 1 2; do
  for v in 0 1; do
    echo "== ROWSOLVE=$v"
    DLA_POTRF_PANEL_ROWSOLVE=$v timeout 90 build/apps/dla bench potrf --sizes 2048 4096 8192 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done
for round in 1 2; do
  for v in 0 1; do
    echo "== LEAF=$v"
    DLA_POTRF_DIAG_LEAF=$v timeout 120 build/apps/dla bench potrf --sizes 1024 3000 6144 10240 12288 \
      --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done
} > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps
for v in 0 1; do
  DLA_POTRF_PANEL_ROWSOLVE=$v timeout 90 ./tl_stamps -q 4096 > "$OUT/stamps-rowsolve$v.txt" 2>&1
done
grep -h "median\|sum of" "$OUT"/stamps-*.txt
