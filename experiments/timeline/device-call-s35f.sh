# Session 35, call 6: the depth rule with sgemmt's new wgmma threshold.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
run() { echo "== $1: $2"; env $2 timeout 120 build/apps/dla bench potrf --sizes $1 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100; }
{
for i in 1 2; do
  for d in 6 8 10; do run "12288 16384" "DLA_POTRF_DEPTH=$d"; done
  for d in 4 5 6; do run "8192 10240" "DLA_POTRF_DEPTH=$d"; done
done
(cd build && ./tests/gemm_test --gtest_filter='GemmGpuTriangular.*:GemmGpuTf32x3.TriangularChoice' 2>&1 | tail -3)
} > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
