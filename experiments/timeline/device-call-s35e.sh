# Session 35, call 5: the threshold of DLA_GEMMT_WGMMA_TILES across sizes,
# and the depth with it.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
run() { echo "== $1: $2"; env $2 timeout 120 build/apps/dla bench potrf --sizes $1 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100; }
{
for i in 1 2; do
  for t in 0 64 32 16; do run "3000 4096 6144 8192 12288 16384" "DLA_GEMMT_WGMMA_TILES=$t"; done
done
run "16384" "DLA_GEMMT_WGMMA_TILES=64 DLA_POTRF_DEPTH=8"
run "16384" "DLA_GEMMT_WGMMA_TILES=64 DLA_POTRF_DEPTH=4"
run "8192" "DLA_GEMMT_WGMMA_TILES=64 DLA_POTRF_DEPTH=3"
run "8192" "DLA_GEMMT_WGMMA_TILES=64 DLA_POTRF_DEPTH=6"
} > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
