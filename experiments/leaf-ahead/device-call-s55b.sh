#!/usr/bin/env bash
# Prepared in session 54 for the next device time, after device-call-s55a.sh:
# the gpu-check of main as it then stands (with s54-next merged if its A/B
# won and its checks passed, else main as it is): scripts/gpu-check.sh's
# test, sanitize (every *Sanitize* test, parallel runs) and bench (potrf,
# getrf) steps on the carried build, whose bench rows are the issue's table.
# Before: `make -C build -j2 && bash scripts/carry-build.sh build` on main.
# Run: `run` with `LIMIT=570 bash experiments/leaf-ahead/device-call-s55b.sh`, carry [".carry"].
LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
gpu_check_carried 5 test,sanitize,bench check
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/summary.txt" "$O/check/summary.txt"
grep -E "^potrf +tf32x3 +(spotrf|sposv)" "$O/check/bench.log"
# At most 8 files come back: the check's own (summary, ctest, sanitize,
# bench log and json) and these.
cat "$O/gpu.txt" "$O/summary.txt" > "$O/main.txt" && rm -f "$O/gpu.txt" "$O/summary.txt"
find "$O" -type f | sort
