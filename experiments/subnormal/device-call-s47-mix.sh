#!/usr/bin/env bash
# Session 47, third call: where sgetrf's 2-2.8% at n = 1024 / 4096 went with
# the subnormal-pivot change (docs/lu.md, Session 47). Four builds of dla that
# differ only in solvers/libdla_solvers.a's LU / trsm objects:
#   dla_main    main before the merge (trsm.cu.o, getrf_panel.cu.o,
#               getrf_leaf_cluster.cu.o as of 8dfb376)
#   dla_branch  the merged code (all three new)
#   dla_mixA    new panel leaves, main's trsm
#   dla_mixB    new trsm, main's panel leaves
# made here with `ar r` on copies of the library and the dla link line, packed
# stripped as .carry-mix/mix.tar.xz (carry [".carry-mix"]).
set -u
tar xJf .carry-mix/mix.tar.xz -C /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for r in 1 2; do
  for b in main branch mixA mixB; do
    echo "== round $r $b"
    timeout 25 /tmp/mix/dla_$b bench getrf --sizes 1024 4096 --repeat 5 2>/dev/null |
      awk '/^getrf .*(sgetrf|dgetrf) n=/{print $2, $3, $4, $5, $6, $7, $8}'
  done
done
echo "(end at ${SECONDS} s)"
