#!/usr/bin/env bash
# Session 40, call 4 (main, the final library): call 3's bench had native
# spotrf 1024 at 0.382 ms (session 39: 0.263), its first row. Repeat it,
# first and later in the process, and with one CTA per tile.
# Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
for cfg in "X=1" "X=1" "DLA_POTRF_CRIT_CLUSTER=0"; do
  echo "== $cfg"
  env $cfg timeout 60 build/apps/dla bench potrf --sizes 1024 2048 1024 --variants all --repeat 10 | grep "^potrf .*spotrf" | awk '{print $2, $3, $4, $5, $6, $7, $8}'
done
