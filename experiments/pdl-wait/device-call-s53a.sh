#!/usr/bin/env bash
# Session 53, call 1: the gpu-check of main (35500e8: session 52's review
# commits, env_knob.hpp in potrf_switches.cuh and CholeskyHost.KnobOverrides,
# never ran on a GPU) with the sanitize step in parallel runs (one per test
# and tool, 6 at a time); then the PDL hand-off probe (pdl_probe.cu, carried
# as build/extra/pdl_probe): what griddepcontrol.wait costs per kernel
# boundary against a counter poll.
# Prediction: the gpu-check as session 52's (316 tests), the sanitize step
# ~80-110 s instead of ~260; the probe: "wait" 0.5-2 us per link above "flag"
# (if below 0.3 us, the flag hand-off is not worth building).
# Run: `run` with `LIMIT=580 bash experiments/pdl-wait/device-call-s53a.sh`, carry [".carry"].
LIMIT=${LIMIT:-580}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
timeout 60 "$B/extra/pdl_probe" > "$O/probe.txt" 2>&1
echo "probe rc $? at ${SECONDS} s" >> "$O/gpu.txt"
gpu_check_carried 15 test,sanitize,bench check
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/probe.txt" "$O/summary.txt" "$O/check/summary.txt"
