#!/usr/bin/env bash
# Session 51, third call: the deep groups' trapezoids (k = 512: sgemmt's wgmma
# kernel, one 128 x 128 tile per SM, 40-50 us at 4096) on the k-split cluster
# kernel instead, whatever their tile count (DLA_POTRF_TRAP_CLUSTER=1: every
# trapezoid; 2: those with k > 256).
#   1. spotrf tf32x3 A/B, three rounds; 2. traces at 4096; 3. the Cholesky ctest
#   entries with the mode forced to 1.
# (DLA_POTRF_TRAP_CLUSTER lived from 5e79b11 and was removed in 9f17731; mode 0 of this A/B is the library of that time.)
# (As run, gpu_line, ab_potrf and trace_potrf were inline; the rows printed "mode M" for VAR=M.)
# Run: `run` with `LIMIT=240 bash experiments/trapezoid/device-call-s51c.sh`, carry [".carry"].
LIMIT=${LIMIT:-240}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
ab_potrf DLA_POTRF_TRAP_CLUSTER "0 1 2" "2048 3000 4096 5000 6144 8192" 3 > "$O/ab.txt"
for m in 1 2; do trace_potrf DLA_POTRF_TRAP_CLUSTER $m "$O/trace-$m.txt"; done
(cd $B && DLA_POTRF_TRAP_CLUSTER=1 timeout 120 ctest -j 8 -R "Cholesky|cholesky|potrf" > "$O/ctest.txt" 2>&1; echo "ctest rc $?" >> "$O/ctest.txt")
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/ab.txt"; tail -4 "$O/ctest.txt"
