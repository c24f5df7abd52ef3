#!/usr/bin/env bash
# Session 50, call 3: main after the s50-getrf-pad merge (the carried build is
# the branch's, whose GPU code main now has). Second A/B round of getrf's
# aligned copy, spotrf's spread at 4096 and its misaligned orders on this card,
# and the copies' time (nsys, where installed; the 2-D copies are not kernels,
# so ncu saw none in call 2).
# Run: `run` with `LIMIT=170 bash experiments/getrf-pad/device-call-s50b.sh`, carry [".carry"].
LIMIT=${LIMIT:-170}
. "$(dirname "$0")/../common/device_call.sh"  # O, left, B (as run: these lines inline)
nvidia-smi --query-gpu=name --format=csv,noheader > "$O/gpu.txt"
S="3001 4096 4097 6145 8193"
{
  ab_getrf "main before (f3c3670)" $B/extra/dla "$S"
  ab_getrf "main (the copy)" $B/apps/dla "$S"
  ab_getrf "main DLA_GETRF_PAD=0" $B/apps/dla "$S" DLA_GETRF_PAD=0
} > "$O/getrf-ab.txt" 2>&1
for r in 1 2 3; do
  [ "$(left)" -gt 20 ] || break
  timeout 20 $B/apps/dla bench potrf --sizes 4096 4097 8193 --variants tf32x3 --repeat 10 2>/dev/null |
    awk -v r=$r '/^potrf .*spotrf/{print "round " r, $4, $5, $6, $7, $8}'
done > "$O/potrf-4096.txt"
if command -v nsys > /dev/null && [ "$(left)" -gt 45 ]; then
  (cd "$O" && timeout 40 nsys profile -o getrf4097 --force-overwrite true --stats=false \
     $B/apps/dla bench getrf --sizes 4097 --variants sgetrf,native --repeat 1 > /dev/null 2>&1;
   timeout 20 nsys stats -q --report cuda_gpu_mem_time_sum getrf4097.nsys-rep > nsys-mem.txt 2>&1;
   rm -f getrf4097.nsys-rep getrf4097.sqlite)
fi
echo "(end at ${SECONDS} s)"
cat "$O/gpu.txt" "$O/getrf-ab.txt" "$O/potrf-4096.txt"; head -20 "$O/nsys-mem.txt" 2>/dev/null
