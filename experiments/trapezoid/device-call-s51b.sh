#!/usr/bin/env bash
# Session 51, second call: the deep groups' trapezoids run as sgemmt's wgmma
# kernel (one 128 x 128 tile per SM, k = 512: 40-50 us at 4096, call 1's
# trace). Env-only sweep of the routes they could take instead:
#   base; DLA_GEMMT_WGMMA_TILES=64 / 128 (the smaller ones on sgemmt's CUDA-core
#   64 x 64 tiles); DLA_POTRF_CRIT_CLUSTER_TILES=1000 (the k-split cluster
#   kernel wherever its contract holds, <= 256 tiles); two rounds; traces at 4096.
# Run: `run` with `LIMIT=200 bash experiments/trapezoid/device-call-s51b.sh`, carry [".carry"].
LIMIT=${LIMIT:-200}
. "$(dirname "$0")/../common/device_call.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > "$O/gpu.txt"
cfgs=("X=0" "DLA_GEMMT_WGMMA_TILES=64" "DLA_GEMMT_WGMMA_TILES=128" "DLA_POTRF_CRIT_CLUSTER_TILES=1000")
for r in 1 2; do
  for c in "${cfgs[@]}"; do
    env $c timeout 40 $B/apps/dla bench potrf --sizes 2048 3000 4096 5000 8192 \
      --variants tf32x3 --repeat 10 2>/dev/null |
      awk -v r=$r -v c=$c '/^potrf .*spotrf/{print "round " r, c, $4, $5, $8}'
  done
done > "$O/ab.txt"
i=0
for c in "${cfgs[@]}"; do
  env $c DLA_POTRF_TRACE=1 timeout 30 $B/apps/dla bench potrf --sizes 4096 \
    --variants tf32x3 --repeat 1 > "$O/trace-$i.txt" 2>&1
  i=$((i + 1))
done
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/ab.txt"
