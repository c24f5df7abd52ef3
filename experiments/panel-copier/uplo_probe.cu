// uplo_probe: spotrf lower and upper timed the same way (session 53's
// prepared call for the copier warp of the upper triangle; `dla bench potrf`
// times lower only). Median of 10 timed calls after 2 warm-ups, each on a
// fresh copy of the same SPD matrix (restored by a device copy outside the
// timing), lda = n, workspace as spotrf_buffer_size asks.
//
// Build (from the repository root, after the CMake build):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include -Igemm/include -Isolvers/include \
//     -Ibuild/core/include experiments/panel-copier/uplo_probe.cu build/solvers/libdla_solvers.a \
//     build/gemm/libdla_gemm.a build/core/libdla_core.a -lcublas -lcuda -lgomp -o /tmp/uplo_probe
// Run: DLA_POTRF_PANEL_COPIER=0|1 ./uplo_probe n [n ...]   (prints "uplo n ms info")
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../common/probe_util.cuh"
#include "dla/solvers/cholesky_cuda.hpp"

int main(int argc, char** argv) {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  for (int a = 1; a < argc; ++a) {
    const long n = std::atol(argv[a]);
    float *dA0, *dA;
    int* info;
    CK(cudaMalloc(&dA0, sizeof(float) * n * n));
    CK(cudaMalloc(&dA, sizeof(float) * n * n));
    CK(cudaMalloc(&info, sizeof(int)));
    probe_make_spd<<<264, 256, 0, s>>>(dA0, int(n), 11u);  // both triangles, SPD
    CK(cudaGetLastError());
    for (dla::Uplo uplo : {dla::Uplo::Lower, dla::Uplo::Upper}) {
      const std::size_t ws_bytes = dla::cuda::spotrf_buffer_size(n, dA, n);
      void* ws = nullptr;
      if (ws_bytes > 0) CK(cudaMalloc(&ws, ws_bytes));
      cudaEvent_t e0, e1;
      CK(cudaEventCreate(&e0));
      CK(cudaEventCreate(&e1));
      std::vector<float> t;
      int h_info = -1;
      for (int it = 0; it < 12; ++it) {
        CK(cudaMemcpyAsync(dA, dA0, sizeof(float) * n * n, cudaMemcpyDeviceToDevice, s));
        CK(cudaEventRecord(e0, s));
        if (dla::cuda::spotrf(s, uplo, n, dA, n, info, ws,
                              ws_bytes) != 0)
          std::exit(2);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it >= 2) t.push_back(ms);
      }
      CK(cudaMemcpy(&h_info, info, sizeof(int), cudaMemcpyDeviceToHost));
      std::sort(t.begin(), t.end());
      std::printf("%s %ld %.3f info=%d\n", uplo == dla::Uplo::Lower ? "lower" : "upper", n,
                  t[t.size() / 2], h_info);
      if (ws) CK(cudaFree(ws));
    }
    CK(cudaFree(dA0));
    CK(cudaFree(dA));
    CK(cudaFree(info));
  }
  return 0;
}
