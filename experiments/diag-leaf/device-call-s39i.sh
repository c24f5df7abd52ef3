#!/usr/bin/env bash
# Session 39, call 9 (branch exp/s39-plan): deeper early groups where the
# bulk update runs on all SMs (DLA_POTRF_BOOST_LARGE=k: depth + k while the
# trailing matrix is larger than 2600, spotrf, n >= 6144), two rounds.
# Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
O="$OUT"
{
  for round in 1 2; do
    for k in 0 1 2; do
      echo "== round $round boost $k"
      DLA_POTRF_BOOST_LARGE=$k timeout 120 build/apps/dla bench potrf --sizes 6144 7168 8192 10240 12288 14336 16384 --variants tf32x3 --repeat 3 | grep "^potrf .*spotrf"
    done
  done
} > "$O/ab.txt" 2>&1
grep -v "^\[" "$O/ab.txt" | awk '/^==/{printf "%s: ", $0; next} {printf "%s %s  ", $4, $5} END {print ""}' | sed 's/== round/\n== round/g'
