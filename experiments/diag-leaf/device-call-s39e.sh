#!/usr/bin/env bash
# Session 39, call 5 (branch exp/s39, leaf kernel form 2): candidate rules
# for the deeper early groups (depth + 2 while the trailing matrix is larger
# than 2600 / 2048, or while col < 40 % of n) against the rule, two rounds,
# n = 3000 .. 6000. Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
O="$OUT"
export DLA_POTRF_LEAF_V2=2
B="potrf --sizes 2048 3000 3500 4096 4608 5000 5500 6000 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for cfg in "X=0" "DLA_POTRF_DEPTH_EARLY=-2 DLA_POTRF_EARLY_TRAIL=2600" \
               "DLA_POTRF_DEPTH_EARLY=-2 DLA_POTRF_EARLY_TRAIL=2048" \
               "DLA_POTRF_DEPTH_EARLY=-2 DLA_POTRF_EARLY_PCT=40" \
               "DLA_POTRF_DEPTH_EARLY=-1 DLA_POTRF_EARLY_TRAIL=2600"; do
      echo "== round $round $cfg"
      env $cfg timeout 100 build/apps/dla bench $B | grep "^potrf .*spotrf"
    done
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '{print $1,$3,$4,$5,$9,$10,$12}'
