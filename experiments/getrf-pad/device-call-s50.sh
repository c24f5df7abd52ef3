#!/usr/bin/env bash
# Session 50, call 2: branch s50-getrf-pad, getrf factoring a misaligned A in
# an aligned copy (getrf_pads, lu_cuda.hpp). Session 50's call 1 split sgetrf
# at 4097 (lda = n): GEMM 5.9 ms against 3.2 at 4096, the rest equal.
# Prediction: sgetrf native 4097 9.9 -> ~7.75 ms (4096's 7.6 + two copies of
# ~50 us), 1.34x -> ~1.7x cuSOLVER; dgetrf 4097 12.0 -> ~11.5 ms.
# Run: `run` with `LIMIT=560 bash experiments/getrf-pad/device-call-s50.sh`,
# carry [".carry"] (scripts/carry-build.sh build /tmp/maindla/dla: the
# branch's build plus main's dla as build/extra/dla). Steps:
#   1. A/B: main's dla, the branch (rule), the branch with DLA_GETRF_PAD=0;
#   2. scripts/gpu-check.sh test,sanitize,bench (potrf getrf), every sanitizer test;
#   3. ncu of the two copies at 4097 if time is left.
LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../common/device_call.sh"  # O, left, B (as run: these lines inline)
export DLA_EXPECT_GPU=1
S="2049 3001 4096 4097 8193"
{
  ab_getrf "main" $B/extra/dla "$S"
  ab_getrf "branch" $B/apps/dla "$S"
  ab_getrf "branch DLA_GETRF_PAD=0" $B/apps/dla "$S" DLA_GETRF_PAD=0
} > "$O/getrf-ab.txt" 2>&1
echo "A/B done at ${SECONDS} s" >> "$O/summary.txt"
gpu_check_carried 30
if [ "$(left)" -gt 25 ]; then
  timeout 25 ncu --kernel-name regex:'[Cc]opy|memcpy' --launch-count 2 \
    --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $B/apps/dla bench getrf --sizes 4097 --variants sgetrf,native --repeat 1 > "$O/ncu-copy.txt" 2>&1
fi
echo "(end at ${SECONDS} s)" >> "$O/summary.txt"
cat "$O/summary.txt" "$O/check/summary.txt" "$O/getrf-ab.txt"; grep -E "Copy|copy|gpu__time|dram__" "$O/ncu-copy.txt" | head -12
