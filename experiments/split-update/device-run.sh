#!/usr/bin/env bash
# Session 28's device call for the split next-column update (potrf.cu,
# update_next): device tests, sanitizers on the Cholesky sanitizer test, an
# A/B against DLA_POTRF_SPLIT_UPDATE=0 (same binary, alternating, twice), and
# a look-ahead trace of each at n = 4096 after a warm-up. Needs the carried
# build (scripts/carry-build.sh; carry [".carry/build.tar.xz"]) and $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rm -rf build && tar xJf .carry/build.tar.xz
B=build/apps/dla
export DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3
(cd build && DLA_EXPECT_GPU=1 timeout 300 ctest -R "cholesky" -j 6 --output-on-failure) \
  > "$OUT/ctest.log" 2>&1
echo "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
sed -n '/The following tests FAILED/,$p' "$OUT/ctest.log" | head -20
for tool in memcheck racecheck; do
  DLA_EXPECT_GPU=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 \
    build/tests/sanitize_test --gtest_filter='SanitizeCholesky*' > "$OUT/san-$tool.log" 2>&1
  echo "sanitize $tool rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$OUT/san-$tool.log" | tr '\n' ' ')"
done
"$B" bench potrf --sizes 4096 --repeat 30 --variants tf32x3 > /dev/null 2>&1  # warm-up
for rep in 1 2; do
  for sp in 1 0; do
    DLA_POTRF_SPLIT_UPDATE=$sp "$B" bench potrf --sizes 2048,3000,4096,5000,6144,8192 \
      --variants tf32x3 > "$OUT/ab-$sp-$rep.txt" 2>&1
    grep -E "spotrf|sposv" "$OUT/ab-$sp-$rep.txt" | sed "s/^/split=$sp run $rep: /"
  done
done
for sp in 1 0; do
  DLA_POTRF_TRACE=1 DLA_POTRF_SPLIT_UPDATE=$sp "$B" bench potrf --sizes 4096 --repeat 1 \
    --variants tf32x3 > /dev/null 2> "$OUT/trace-$sp.log"
done
ls -la "$OUT"
