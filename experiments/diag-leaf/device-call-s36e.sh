#!/usr/bin/env bash
# Session 36, call 5: the leaf kernel v3 (race fixed: the leaf warps read
# the diagonal rows before warp 0 writes them; the leaf stored and the next
# leaf's columns updated by every warp, releases after it; 4 update warps
# beside the leaf): alone (leaf_probe), the Cholesky ctest entries,
# sanitizers, the A/B against the tile kernel, and in-place stamps.
# Carry .carry/build.tar.xz, .carry/leaf_probe.xz, .carry/tl_stamps.xz.
set -u
cd .carry && xz -dkf leaf_probe.xz && xz -dkf tl_stamps.xz && chmod +x leaf_probe tl_stamps && cd ..
for m in 128 100; do .carry/leaf_probe $m; done > $OUT/probe.txt 2>&1; cat $OUT/probe.txt
rm -rf build; tar xJf .carry/build.tar.xz
(cd build && timeout 280 ctest -R cholesky -j 10 --output-on-failure) > $OUT/ctest-chol.txt 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-chol.txt | head -20
for tool in memcheck racecheck synccheck; do
  DLA_EXPECT_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > /tmp/san.txt 2>&1; echo "$tool SanitizeCholesky rc=$?"; tail -1 /tmp/san.txt; head -40 /tmp/san.txt >> $OUT/san-all.txt
done > $OUT/sanitize.txt
DLA_EXPECT_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/cholesky_test \
  --gtest_filter='CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot' \
  > $OUT/san-diag.txt 2>&1; echo "memcheck DiagonalBlockKernel etc rc=$?" >> $OUT/sanitize.txt; tail -1 $OUT/san-diag.txt >> $OUT/sanitize.txt
cat $OUT/sanitize.txt
for v in 1 0 1 0; do echo "== LEAF=$v"; DLA_POTRF_DIAG_LEAF=$v timeout 60 build/apps/dla bench potrf --sizes 1024 2048 4096 8192 \
  --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-110; done > $OUT/ab-leaf.txt 2>&1
cat $OUT/ab-leaf.txt
DLA_POTRF_DIAG_LEAF=1 timeout 90 .carry/tl_stamps -q 4096 > "$OUT/stamps-leaf1.txt" 2>&1
grep -h "median\|sum of" "$OUT"/stamps-*.txt
