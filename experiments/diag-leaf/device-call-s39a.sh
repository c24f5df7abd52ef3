#!/usr/bin/env bash
# Session 39, call 1 (branch exp/s39): the leaf kernel's load probed
# (load_probe.cu), the leaf kernel's V2 form (division-free stores and
# next-leaf update, update warps in 4 x 8 tile blocks) alone (leaf_probe.cu,
# with memcheck and racecheck) and in place (dla bench A/B,
# DLA_POTRF_LEAF_V2), the critical path alone (DLA_POTRF_PROBE_NO_BULK=1:
# the bulk update skipped, wrong factors, times only), and the stamps of
# both. Carry .carry/{dla,tl_stamps,leaf_probe,load_probe}.xz.
set -u
cd .carry && for f in dla tl_stamps leaf_probe load_probe; do xz -dkf $f.xz && chmod +x $f; done
O="$OUT"
{
  echo "== load probe"; timeout 60 ./load_probe
  for m in 128 100; do echo "== leaf probe m=$m"; timeout 60 ./leaf_probe $m; done
} > "$O/probes.txt" 2>&1
cat "$O/probes.txt"
{
  for m in 128 37; do
    echo "== memcheck m=$m"; timeout 90 compute-sanitizer --tool memcheck ./leaf_probe $m 1 | grep -E "ERROR SUMMARY|leaf v2|error" | head -5
  done
  echo "== racecheck m=128"; timeout 120 compute-sanitizer --tool racecheck ./leaf_probe 128 1 | grep -E "RACECHECK SUMMARY|hazard|leaf v2" | head -5
} > "$O/sanitize.txt" 2>&1
cat "$O/sanitize.txt"
B="potrf --sizes 2048 3000 4096 5000 8192 --variants tf32x3 --repeat 5"
{
  for round in 1 2; do
    for v in 0 1; do
      echo "== round $round LEAF_V2=$v"
      DLA_POTRF_LEAF_V2=$v timeout 120 ./dla bench $B | grep "^potrf .*spotrf"
    done
  done
  echo "== NO_BULK=1 (critical path alone; wrong factors)"
  DLA_POTRF_PROBE_NO_BULK=1 timeout 120 ./dla bench potrf --sizes 2048 3000 4096 6144 8192 --variants tf32x3 --repeat 5 | grep "^potrf .*spotrf"
} > "$O/ab.txt" 2>&1
cat "$O/ab.txt"
DLA_POTRF_LEAF_V2=1 timeout 100 ./tl_stamps -q 4096 2048 > "$O/stamps-v2.txt" 2>&1
DLA_POTRF_PROBE_NO_BULK=1 timeout 100 ./tl_stamps -q 4096 > "$O/stamps-nobulk.txt" 2>&1
grep -h "median\|sum of\|spotrf\|^n=" "$O"/stamps-*.txt | head -40
