#!/usr/bin/env bash
# Prepared in session 53, not run: the last sub-panel in two halves
# (experiments/panel-copier/half-release.patch: the leaf diagonal kernel
# releases columns 96..111 by half a unit before its last leaf; the copier
# panel copies and solves them, then columns 112..127 at the final release;
# DLA_POTRF_HALF_RELEASE=0 turns it off). The patch is against main after
# session 53 (it does not include copier-upper.patch; apply one, then rebase
# the other). Before the call: `git apply experiments/panel-copier/half-release.patch`,
# build, the stamped timeline (experiments/timeline/timeline.cu's header) as
# /tmp/stamps/timeline, `bash scripts/carry-build.sh build /tmp/stamps/timeline`.
# Prediction: the panel's tail after the diagonal kernel's end from ~3-3.7 us
# to ~2-2.3 (a 16 x 16 copy with nothing below, 16 solve steps): 4096 -30 to
# -45 us, 2048 and 3000 -3 to -5%, 8192 -1%; the factor the same bit for bit.
# Run: `run` with `LIMIT=470 bash experiments/panel-copier/device-call-s54-half.sh`, carry [".carry"].
LIMIT=${LIMIT:-470}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
sweep_potrf "2048 3000 4096 5000 8192" 3 380 rule DLA_POTRF_HALF_RELEASE=0 > "$O/sweep.txt"
echo "sweep end at ${SECONDS} s" >> "$O/gpu.txt"
BITWISE_VAR=DLA_POTRF_HALF_RELEASE timeout 90 /opt/torch/.venv/bin/python3 \
  experiments/panel-copier/bitwise.py "$B/apps/dla" /tmp 4096 3001 >> "$O/gpu.txt" 2>&1
for v in 0 1; do
  DLA_POTRF_HALF_RELEASE=$v timeout 40 "$B/extra/timeline" -q 4096 > "$O/stamps-half$v.txt" 2>&1
done
cholesky_checks 100
cat "$O/gpu.txt" "$O/sweep.txt"; grep -h "median\|sum of" "$O"/stamps-*.txt
grep -E "tests passed|tests failed|Failed  " "$O/ctest.txt" | head
