#!/usr/bin/env bash
# Session 34: the diagonal kernels' phase stamps inside spotrf, tile kernel
# against the split kernel (docs/cholesky-log.md, session 34). Carry
# .carry/tl_stamps.xz, built on the GPU-less machine after the CMake build:
#   nvcc -O3 -DNDEBUG -arch=sm_90 --expt-relaxed-constexpr -std=c++20 \
#     -include experiments/timeline/diag_stamps.cuh -Isolvers/include -Icore/include \
#     -Ibuild/core/include -Igemm/include -Isolvers/src/cuda \
#     -c solvers/src/cuda/potrf.cu -o potrf_stamps.o
#   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include -Igemm/include -Isolvers/include \
#     -Ibuild/core/include -c experiments/timeline/timeline.cu -o timeline.o
#   nvcc -arch=sm_90 timeline.o potrf_stamps.o build/solvers/libdla_solvers.a \
#     build/gemm/libdla_gemm.a build/core/libdla_core.a -lcusolver -lcublas -lcupti -lgomp \
#     -o .carry/tl_stamps && xz .carry/tl_stamps
# At most 8 files come back from $OUT: keep to one per variant.
set -u
mkdir -p "${OUT:-/tmp}"
cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps
for v in 0 1; do
  DLA_POTRF_DIAG_SPLIT=$v timeout 90 ./tl_stamps -q 4096 2048 8192 > "${OUT:-/tmp}/stamps-split$v.txt" 2>&1
done
# The fused panel's unrolled form (the float default is rolled since session 35).
DLA_POTRF_PANEL_ROLLED=0 timeout 90 ./tl_stamps -q 4096 2048 8192 > "${OUT:-/tmp}/stamps-unrolled.txt" 2>&1
grep -h "median\|sum of" "${OUT:-/tmp}"/stamps-*.txt
