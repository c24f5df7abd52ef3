set -u
rm -rf build; tar xJf .carry/build.tar.xz
cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps && cd ..
timeout 90 .carry/tl_stamps -q 4096 2048 8192 > $OUT/stamps-default.txt 2>&1
DLA_POTRF_PANEL_ROLLED=1 timeout 90 .carry/tl_stamps -q 4096 2048 8192 > $OUT/stamps-rolled.txt 2>&1
for r in 0 1 0 1; do echo "== ROLLED=$r"; DLA_POTRF_PANEL_ROLLED=$r timeout 60 build/apps/dla bench potrf --sizes 2048 4096 8192 --variants tf32x3; done > $OUT/ab.txt 2>&1
grep -E "^==|tf32x3" $OUT/ab.txt | head -40
(cd build && timeout 200 ctest -j 12 -R "cholesky_test" 2>&1 | tail -15) > $OUT/ctest.txt
tail -8 $OUT/ctest.txt
for t in memcheck racecheck; do DLA_POTRF_PANEL_ROLLED=1 timeout 120 compute-sanitizer --tool $t --error-exitcode 9 build/tests/sanitize_test --gtest_filter='SanitizeCholesky.*' 2>&1 | tail -4; echo "rc=${PIPESTATUS[0]}"; done > $OUT/san.txt 2>&1
cat $OUT/san.txt
grep -h "median\|sum of" $OUT/stamps-*.txt | head -60
