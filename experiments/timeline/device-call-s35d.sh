# Session 35, call 4: the in-group updates of the look-ahead on the wgmma
# kernel at 16384 (DLA_GEMMT_WGMMA_TILES), and the rolled panel as default.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
run() { echo "== $1: $2"; env $2 timeout 90 build/apps/dla bench potrf --sizes $1 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100; }
{
for i in 1 2; do
  for t in 0 100 64; do run "8192 16384" "DLA_GEMMT_WGMMA_TILES=$t"; done
done
for i in 1 2; do
  for r in 1 0; do run "2048 4096" "DLA_POTRF_PANEL_ROLLED=$r"; done
done
} > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
