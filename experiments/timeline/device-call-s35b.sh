# Session 35, call 2: where spotrf 16384 spends its time (the stretch goal).
set -u
rm -rf build; tar xJf .carry/build.tar.xz
cd .carry && xz -dkf timeline.xz && chmod +x timeline && cd ..
timeout 120 .carry/timeline 16384 > $OUT/tl16384.txt 2>&1; echo "timeline rc=$?"
head -5 $OUT/tl16384.txt
for d in 6 4 8 12; do
  echo "== depth $d"; DLA_POTRF_DEPTH=$d timeout 90 build/apps/dla bench potrf --sizes 16384 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf"
done > $OUT/depth.txt 2>&1
cat $OUT/depth.txt
