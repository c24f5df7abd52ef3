#!/usr/bin/env bash
# Builds the carry for the device calls of this folder (device-call-s55c.sh
# on; session 55) from the checkout's build/: the test binaries and dla
# (scripts/carry-build.sh) plus the timeline of that library
# (experiments/timeline/timeline.cu, no stamps) as build/extra/timeline.
set -euo pipefail
cd "$(dirname "$0")/../.."
make -C build -j2
nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include -Ibuild/core/include -Igemm/include -Isolvers/include \
  experiments/timeline/timeline.cu build/solvers/libdla_solvers.a build/gemm/libdla_gemm.a \
  build/core/libdla_core.a -lcusolver -lcublas -lcupti -lcuda -o /tmp/s55c-timeline
mkdir -p /tmp/s55c && cp /tmp/s55c-timeline /tmp/s55c/timeline
bash scripts/carry-build.sh build /tmp/s55c/timeline
