#!/usr/bin/env bash
# Session 37, call 4: with the new float defaults (broadcast panel, leaf
# diagonal kernel), are the blocking rules still the best? A sweep through
# the environment overrides only (no new code): depth, the bulk update's SM
# share and nb, around 3000 / 4096 / 6144, two rounds.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
for round in 1 2; do
  for cfg in "X=0" "DLA_POTRF_DEPTH=1" "DLA_POTRF_DEPTH=3" "DLA_POTRF_SIDE_SMS=80" "DLA_POTRF_SIDE_SMS=112" \
             "DLA_POTRF_SIDE_SMS=132" "DLA_POTRF_NB=96" "DLA_POTRF_NB=112"; do
    echo "== $cfg"
    env $cfg timeout 60 build/apps/dla bench potrf --sizes 3000 4096 6144 --variants tf32x3 --repeat 5 2>&1 \
      | grep -E "^potrf .*spotrf" | cut -c1-100
  done
done > $OUT/sweep.txt 2>&1
cat $OUT/sweep.txt
