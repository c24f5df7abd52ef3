# Session 35, call 3: spotrf 16384 (and 8192) under settings that take SM time
# from the critical stream's kernels (docs/cholesky-log.md, session 35).
set -u
rm -rf build; tar xJf .carry/build.tar.xz
run() { echo "== $*"; env "$@" timeout 90 build/apps/dla bench potrf --sizes 8192 16384 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-110; }
{
run X=0
run DLA_POTRF_FUSED_PANEL=0
run DLA_POTRF_NB=256 DLA_POTRF_DEPTH=3
run DLA_POTRF_NB=256 DLA_POTRF_DEPTH=4
run DLA_POTRF_NB=192 DLA_POTRF_DEPTH=4
run DLA_POTRF_SIDE_SMS=120
run DLA_POTRF_SIDE_SMS=112
run DLA_POTRF_PANEL_ROLLED=1
run X=0
} > $OUT/sweep.txt 2>&1
cat $OUT/sweep.txt
