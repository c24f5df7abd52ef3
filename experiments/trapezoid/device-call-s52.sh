#!/usr/bin/env bash
# Not run (session 52 spent its device time on the signal and the knobs;
# its call 2 timed the half trapezoids on the H200, not the half off).
# Prepared in session 51 for the next device call (meant for the H200, where
# the half trapezoids have never run; ratios hold on whatever card comes):
# spotrf tf32x3 with the half trapezoids off / on (DLA_POTRF_TRAP_HALF=0 / 1;
# the rule takes them below 4608), four rounds at 3000-4352, then the same
# bench rows as the gpu-check's potrf suite.
# Run: `run` with `LIMIT=150 bash experiments/trapezoid/device-call-s52.sh`, carry [".carry"]
# (scripts/carry-build.sh build first).
LIMIT=${LIMIT:-150}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
ab_potrf DLA_POTRF_TRAP_HALF "0 1" "3000 4096 4352" 4 > "$O/ab.txt"
timeout 60 $B/apps/dla bench potrf --variants tf32x3 --repeat 10 2>/dev/null |
  awk '/^potrf .*spotrf/{print $4, $5, $8, $9, $10}' > "$O/potrf.txt"
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/ab.txt" "$O/potrf.txt"
