#!/usr/bin/env bash
# Session 51, fourth call: the next group's trapezoid in two halves of k, the
# first on the side stream as soon as the group's first half of panels is done
# (DLA_POTRF_TRAP_HALF=1: groups of >= 4 panels; 2: of >= 2), so that the
# critical trapezoid at the group's end takes k = 256 instead of 512.
#   1. spotrf tf32x3 A/B, three rounds; 2. traces at 4096; 3. CholeskyDevice
#   ctest entries with the mode forced to 2, then 1.
# (As run, DLA_POTRF_TRAP_HALF took 1 = groups of >= 4, 2 = groups of >= 2 (a8ca151); since 9f17731 it is the rule potrf_trap_half, and 1 / 0 force it on (groups of >= 2) / off.)
# (As run, gpu_line, ab_potrf and trace_potrf were inline; the rows printed "mode M" for VAR=M.)
# Run: `run` with `LIMIT=280 bash experiments/trapezoid/device-call-s51d.sh`, carry [".carry"].
LIMIT=${LIMIT:-280}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
ab_potrf DLA_POTRF_TRAP_HALF "0 1 2" "2048 3000 4096 5000 6144 8192" 3 > "$O/ab.txt"
for m in 1 2; do trace_potrf DLA_POTRF_TRAP_HALF $m "$O/trace-$m.txt"; done
for m in 2 1; do
  (cd $B && DLA_POTRF_TRAP_HALF=$m timeout $(( $(left) / 2 - 5 )) ctest -j 8 -R "CholeskyDevice" > "$O/ctest-$m.txt" 2>&1; echo "ctest mode $m rc $?" >> "$O/ctest-$m.txt")
done
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/ab.txt"; tail -3 "$O"/ctest-*.txt
