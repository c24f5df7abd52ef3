#!/usr/bin/env bash
# Prepared in session 53, not run: the copier warp for every fused float
# panel (experiments/panel-copier/copier-upper.patch: the upper triangle and
# misaligned lower blocks copy L11 one element per cp.async; lower aligned
# blocks keep the 16-byte copies, whose PTX the patch leaves unchanged).
# Before the call: `git apply experiments/panel-copier/copier-upper.patch`
# on main as of session 53, or, once experiments/leaf-ahead/s54-next.patch
# is in (session 54: the copier's last chunk in halves),
# `git apply experiments/panel-copier/copier-upper-on-next.patch` on top of
# it (the lower aligned copier's PTX unchanged by it, compared); build, then
# `bash scripts/carry-build.sh build /tmp/uplo_probe` with uplo_probe built
# as its header says.
# Prediction: upper spotrf as much faster as lower was in session 53 (4096
# ~-6%, 2048 ~-7%, 8192 ~-2.5%); lower unchanged; every cholesky ctest entry
# passes (FactorAndSolveMatchHost and LargeSizes run both triangles;
# MatchesCusolver runs 3001 and 4097 in place with lda = n: the element copy).
# Run: `run` with `LIMIT=420 bash experiments/panel-copier/device-call-s54-upper.sh`, carry [".carry"].
LIMIT=${LIMIT:-420}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
for r in 1 2; do
  for v in 0 1; do
    DLA_POTRF_PANEL_COPIER=$v timeout 60 "$B/extra/uplo_probe" 2048 4096 8192 |
      sed "s/^/round $r copier=$v /" >> "$O/uplo.txt"
  done
done
echo "probe end at ${SECONDS} s" >> "$O/gpu.txt"
cholesky_checks 100
cat "$O/gpu.txt" "$O/uplo.txt"; grep -E "tests passed|tests failed|Failed  " "$O/ctest.txt" | head
