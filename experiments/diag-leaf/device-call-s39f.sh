#!/usr/bin/env bash
# Session 39, call 6 (branch exp/s39, leaf kernel form 2): the deeper early
# groups (depth + 2 / + 1 while the trailing matrix is larger than 2600) at
# n >= 6144 (bulk update on all SMs, depth 3 .. 10) and for dpotrf, two
# rounds. Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
O="$OUT"
export DLA_POTRF_LEAF_V2=2
{
  for round in 1 2; do
    for cfg in "X=0" "DLA_POTRF_DEPTH_EARLY=-2 DLA_POTRF_EARLY_TRAIL=2600" \
               "DLA_POTRF_DEPTH_EARLY=-1 DLA_POTRF_EARLY_TRAIL=2600"; do
      echo "== round $round $cfg"
      env $cfg timeout 150 build/apps/dla bench potrf --sizes 3000 4096 6144 8192 12288 16384 --variants tf32x3 --repeat 3 | grep "^potrf .*potrf"
    done
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '{print $1,$2,$3,$4,$5,$9,$10,$12}'
