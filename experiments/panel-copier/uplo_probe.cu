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
#include <random>
#include <vector>

#include "dla/solvers/cholesky_cuda.hpp"

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

int main(int argc, char** argv) {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  for (int a = 1; a < argc; ++a) {
    const long n = std::atol(argv[a]);
    // Symmetric, entries uniform in [-1, 1) off the diagonal and n on it:
    // strictly diagonally dominant, so SPD.
    std::vector<float> A(std::size_t(n * n));
    std::mt19937 gen{static_cast<unsigned>(n)};
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (long j = 0; j < n; ++j)
      for (long i = j; i < n; ++i) {
        const float v = i == j ? float(n) : u(gen);
        A[i + j * n] = v;
        A[j + i * n] = v;
      }
    float *dA0, *dA;
    int* info;
    CK(cudaMalloc(&dA0, sizeof(float) * n * n));
    CK(cudaMalloc(&dA, sizeof(float) * n * n));
    CK(cudaMalloc(&info, sizeof(int)));
    CK(cudaMemcpy(dA0, A.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice));
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
