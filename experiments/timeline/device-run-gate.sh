#!/usr/bin/env bash
# Session 31, device call 3: the side gate (DLA_POTRF_SIDE_GATE) A/B and its
# timeline at 4096. Carry .carry/timeline (built as in timeline.cu's header).
set -u
mkdir -p "${OUT:-/tmp}"
T=./.carry/timeline
for rep in 1 2 3; do
  for g in 1 0; do
    echo "== gate=$g rep $rep"; DLA_POTRF_SIDE_GATE=$g $T -q 2048 3000 4096 5000 6144 8192
  done
done
for sms in 88 104; do echo "== gate=1 sms=$sms"; DLA_POTRF_SIDE_SMS=$sms $T -q 4096 5000 6144; done
echo "== gate=1 depth=3"; DLA_POTRF_DEPTH=3 $T -q 4096 5000
$T 4096 > "${OUT:-/tmp}/timeline-gate.txt" 2>&1
DLA_POTRF_SIDE_GATE=0 $T 4096 > "${OUT:-/tmp}/timeline-nogate.txt" 2>&1
grep "^==" "${OUT:-/tmp}"/timeline-*.txt
