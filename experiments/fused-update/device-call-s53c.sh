#!/usr/bin/env bash
# Needs experiments/fused-update/fused-update.patch (made against 04952c7, before the copier
# warp; apply it there: git checkout 04952c7 && git apply ...) and a build of that tree.
# Session 53, call 3 (branch s53-fused-update): why the fused next-column
# update was slower (call 2, H100: 4096 1.339-1.353 ms against 1.301-1.302).
# The phase stamps (experiments/timeline, diag_stamps.cuh; the stamped
# timeline binary carried as build/extra/timeline) at 4096 with the path off
# and on: per step the diagonal kernel's entry and wait (gap after the
# previous one's end), its leaves (slot 33 "loaded" now includes the pending
# update), and the panels' chunks with the new slot 28 (pending update done).
# Run: `run` with `LIMIT=200 bash experiments/fused-update/device-call-s53c.sh`, carry [".carry"].
LIMIT=${LIMIT:-200}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
for v in 0 1; do
  DLA_POTRF_FUSED_UPDATE=$v timeout 60 "$B/extra/timeline" -q 4096 > "$O/stamps-fused$v.txt" 2>&1
  echo "stamps fused=$v rc $? at ${SECONDS} s" >> "$O/gpu.txt"
done
cat "$O/gpu.txt"; grep -h "median\|sum of\|^dla\|ms" "$O"/stamps-*.txt | head -20
