#!/usr/bin/env bash
# Session 37, call 5: call 4 found the bulk update on all SMs faster than on
# the 96-SM partition at 4096 and 6144 (and slower at 3000) under the new
# defaults. Where is the crossover? DLA_POTRF_SIDE_SMS 96 / 112 / 120 / all,
# 2048 .. 6144, three rounds.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
for round in 1 2 3; do
  for cfg in "DLA_POTRF_SIDE_SMS=96" "DLA_POTRF_SIDE_SMS=112" "DLA_POTRF_SIDE_SMS=120" "DLA_POTRF_SIDE_SMS=132"; do
    echo "== $cfg"
    env $cfg timeout 60 build/apps/dla bench potrf --sizes 2048 3000 3500 4096 5000 6144 --variants tf32x3 --repeat 5 2>&1 \
      | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done > $OUT/sweep.txt 2>&1
cat $OUT/sweep.txt
