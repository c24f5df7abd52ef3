#!/usr/bin/env bash
# Session 51, first call: does the deep early groups' trapezoid (sgemmt, k = 512,
# not gated) run faster when rest(group) waits for its end instead of racing it
# for the SMs (DLA_POTRF_TRAP_FIRST=1; 2: only after the first group)?
#   1. spotrf tf32x3 A/B, modes 0 / 1 / 2 interleaved, three rounds;
#   2. DLA_POTRF_TRACE=1 at 4096, modes 0 and 1 (the step gaps).
# (DLA_POTRF_TRAP_FIRST lived on branch s51-trap-first from 09ec0c0 and was removed in 9f17731.)
# (As run, gpu_line, ab_potrf and trace_potrf were inline; the rows printed "mode M" for VAR=M.)
# Run: `run` with `LIMIT=300 bash experiments/trapezoid/device-call-s51.sh`, carry [".carry"].
LIMIT=${LIMIT:-300}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
ab_potrf DLA_POTRF_TRAP_FIRST "0 1 2" "2048 3000 4096 5000 6144 8192" 3 > "$O/ab.txt"
for m in 0 1; do trace_potrf DLA_POTRF_TRAP_FIRST $m "$O/trace-$m.txt"; done
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/ab.txt"
