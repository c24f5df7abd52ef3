# Session 35, call 7: dpotrf (FP64 tensor cores share the depth rule) at the
# depths the new spotrf rule would take.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
run() { echo "== $1: $2"; env $2 timeout 150 build/apps/dla bench potrf --sizes $1 --variants blocked --repeat 3 2>&1 | grep -E "^potrf .*dpotrf" | cut -c1-100; }
{
for i in 1 2; do
  run "12288" "DLA_POTRF_DEPTH=4"; run "12288" "DLA_POTRF_DEPTH=6"
  run "16384" "DLA_POTRF_DEPTH=6"; run "16384" "DLA_POTRF_DEPTH=10"
done
} > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
