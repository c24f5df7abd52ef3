#!/usr/bin/env bash
# Session 40, call 1: the critical-path update's tile on a cluster of CTAs
# that split k (potrf_update_cluster.cuh). The cholesky ctest entries (the
# default, clusters of 4; crit_cluster_2; crit_one_cta), the A/B of the
# cluster size against one CTA per tile, and the stamps at 4096 with each.
# Carry .carry (build.tar.xz with extra/tl_stamps).
set -u
tar xJf .carry/build.tar.xz
X=build/extra
O="$OUT"
(cd build && timeout 300 ctest -j 12 -R "cholesky" 2>&1 | tail -12) > "$O/ctest.txt" 2>&1
cat "$O/ctest.txt"
B="potrf --sizes 2048 3000 4096 5000 6144 8192 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for ks in 4 2 a 0; do
      echo "== round $round DLA_POTRF_CRIT_CLUSTER=$ks"
      DLA_POTRF_CRIT_CLUSTER=$ks timeout 100 build/apps/dla bench $B | grep "^potrf .*spotrf"
    done
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '/^==/{print; next} {print $4, $5, $6, $7, $8, $9}'
for ks in 4 0; do
  DLA_POTRF_CRIT_CLUSTER=$ks timeout 60 $X/tl_stamps -q 4096 > "$O/stamps_$ks.txt" 2>&1
  grep -h "sum of\|median" "$O/stamps_$ks.txt"
done
# The first group's first panels applied past it on the idle side stream
# (DLA_POTRF_PRE_GROUP0, an experiment knob).
{
  for pre in 1 2 0; do
    echo "== DLA_POTRF_PRE_GROUP0=$pre"
    DLA_POTRF_PRE_GROUP0=$pre timeout 100 build/apps/dla bench potrf --sizes 3000 4096 5000 --variants tf32x3 --repeat 5 | grep "^potrf .*spotrf"
  done
} > "$O/pre.txt" 2>&1
grep -v "^\[" "$O/pre.txt" | awk '/^==/{print; next} {print $4, $5, $6, $7, $8, $9}'
