#!/usr/bin/env bash
# Session 37, call 7: call 6's bench had spotrf 4096 at 1.443 ms with the
# new side-SM rule (120 SMs), against 1.416-1.422 in call 5 with
# DLA_POTRF_SIDE_SMS=120 for every size. Does a process that also made the
# 96-SM partition (smaller n, or the native variant) run the 120-SM one
# slower? Rule (96 then 120 in one process) / forced 120 / forced 96 /
# rule with only n >= 4096 (one partition), three rounds.
set -u
rm -rf build; tar xJf .carry/build.tar.xz
for round in 1 2 3; do
  for cfg in "X=rule" "DLA_POTRF_SIDE_SMS=120" "DLA_POTRF_SIDE_SMS=96"; do
    echo "== $cfg 2048 4096 5000"
    env $cfg timeout 60 build/apps/dla bench potrf --sizes 2048 4096 5000 --variants tf32x3 --repeat 5 2>&1 \
      | grep -E "^potrf .*spotrf" | cut -c1-100
  done
  echo "== rule 4096 5000 only"
  timeout 60 build/apps/dla bench potrf --sizes 4096 5000 --variants tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
  echo "== rule, native and tf32x3 variants"
  timeout 60 build/apps/dla bench potrf --sizes 4096 5000 --variants native tf32x3 --repeat 5 2>&1 | grep -E "^potrf .*spotrf" | cut -c1-100
done > $OUT/sweep.txt 2>&1
cat $OUT/sweep.txt
