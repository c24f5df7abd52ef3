#!/usr/bin/env bash
# Session 39, call 8 (branch exp/s39-plan): explicit sizes of the first
# groups (DLA_POTRF_GROUP_PLAN, panels per group, then the rule) at 4096 and
# 5000, two rounds. Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
O="$OUT"
{
  for round in 1 2; do
    for p in "" "2,4,4,2" "2,3,4,3" "4,4,4,4" "2,4,4,4" "4,4,3,3" "3,3,3,3,3" "3,4,4,3" "4,4,4,3,3"; do
      echo "== round $round plan '$p'"
      DLA_POTRF_GROUP_PLAN=$p timeout 60 build/apps/dla bench potrf --sizes 4096 --variants tf32x3 --repeat 7 | grep "^potrf .*spotrf"
    done
    for p in "" "2,4,4,4,4" "4,4,4,4,4,4" "3,4,4,4,4,3" "4,4,4,4,4,4,4"; do
      echo "== round $round plan '$p'"
      DLA_POTRF_GROUP_PLAN=$p timeout 60 build/apps/dla bench potrf --sizes 5000 --variants tf32x3 --repeat 7 | grep "^potrf .*spotrf"
    done
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '/^==/{printf "%s ", $0; next} {print $4, $5}'
