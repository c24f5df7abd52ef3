#!/usr/bin/env bash
# Session 37, call 9: CUPTI kernel timelines of dla's and cuSOLVER's spotrf
# at 4096 and 8192 on the final library (experiments/timeline/timeline.cu,
# no stamps), for the time split by kernel (diagonal / panel / critical
# update / bulk update). Carry .carry/build.tar.xz and .carry/timeline.xz.
set -u
cd .carry && xz -dkf timeline.xz && chmod +x timeline
timeout 120 ./timeline 4096 8192 > "$OUT/timeline.txt" 2>&1
echo "rc=$?"; grep -iE "median" "$OUT/timeline.txt" | head
