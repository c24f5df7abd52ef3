// The library's potrf_diag_leaf_kernel (solvers/src/cuda/potrf_diag_leaf.cuh)
// alone on an idle GPU, against potrf_diag_tiles_kernel<float, 128>: event
// time per launch (warm), SM cycles per phase of every leaf (thread 0's
// clock64 through the kernel's DLA_POTRF_LEAF_STAMP hook), and the factor
// checked against a float64 Cholesky (session 36, docs/cholesky-log.md).
//
// Build (from the repository root, after the CMake build):
//   nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -lineinfo -Icore/include \
//     -Ibuild/core/include -Isolvers/src/cuda experiments/diag-leaf/leaf_probe.cu \
//     -o .carry/leaf_probe
// Run: ./leaf_probe [m] [warm launches per kernel, default 20]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

__device__ unsigned long long g_leaf_stamps[64];
#define DLA_POTRF_LEAF_STAMP(slot) (g_leaf_stamps[(slot)] = clock64())

#include "../common/probe_util.cuh"
#include "potrf_diag_leaf.cuh"
#include "potrf_diag_tiles.cuh"

using namespace dla::cuda::detail;

int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 128;
  const int n = 128, lda = 128;
  float *A0 = nullptr, *A = nullptr;
  int* info = nullptr;
  CK(cudaMalloc(&A0, sizeof(float) * n * n));
  CK(cudaMalloc(&A, sizeof(float) * n * n));
  CK(cudaMalloc(&info, sizeof(int)));
  probe_make_spd<<<64, 256>>>(A0, n, 7u);
  CK(cudaGetLastError());
  // The probe's matrix has order 128; an order m < 128 block is its leading part.
  std::vector<float> h(size_t(n) * n);
  CK(cudaMemcpy(h.data(), A0, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
  std::vector<float> hm(size_t(m) * m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) hm[i + size_t(j) * m] = h[i + size_t(j) * n];
  const std::vector<double> R = probe_cholesky_f64(hm, m);

  const std::size_t smem = potrf_diag_leaf_smem_bytes();
  CK(cudaFuncSetAttribute(potrf_diag_leaf_kernel<false>,
                          cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int kernel = 0; kernel < 2; ++kernel) {
    float best = 1e9f, sum = 0.f;
    const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;  // 1 under the sanitizers
    for (int r = 0; r < reps + 1; ++r) {
      CK(cudaMemcpy(A, A0, sizeof(float) * n * n, cudaMemcpyDeviceToDevice));
      CK(cudaMemset(info, 0, sizeof(int)));
      CK(cudaEventRecord(e0));
      if (kernel == 0)
        potrf_diag_leaf_kernel<false><<<1, kLeafThreads, smem>>>(A, lda, m, info, 0, nullptr, 0);
      else
        potrf_diag_tiles_kernel<float, 128, false>
            <<<1, DiagTiles<128>::kThreads>>>(A, lda, m, info, 0, nullptr, 0);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float ms = 0.f;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r > 0) { best = std::min(best, ms); sum += ms; }  // launch 0 is cold
    }
    int hinfo = -1;
    CK(cudaMemcpy(&hinfo, info, sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<float> L(size_t(n) * n);
    CK(cudaMemcpy(L.data(), A, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
    double err = 0.0, nrm = 0.0;
    for (int j = 0; j < m; ++j)
      for (int i = j; i < m; ++i) {
        err = std::max(err, std::abs(double(L[i + size_t(j) * n]) - R[i + size_t(j) * m]));
        nrm = std::max(nrm, std::abs(R[i + size_t(j) * m]));
      }
    std::printf("%s m=%d: best %.2f us, mean %.2f us (%d warm launches), info %d, max|L - L64|/max|L| %.2e\n",
                kernel == 0 ? "leaf kernel " : "tile kernel ", m, best * 1e3f, sum / reps * 1e3f, reps,
                hinfo, err / nrm);
  }
  // Phases of the last leaf-kernel launch (SM cycles from the kernel's start).
  CK(cudaMemcpy(A, A0, sizeof(float) * n * n, cudaMemcpyDeviceToDevice));
  CK(cudaMemset(info, 0, sizeof(int)));
  potrf_diag_leaf_kernel<false><<<1, kLeafThreads, smem>>>(A, lda, m, info, 0, nullptr, 0);
  CK(cudaDeviceSynchronize());
  unsigned long long s[64];
  CK(cudaMemcpyFromSymbol(s, g_leaf_stamps, sizeof(s)));
  const double t0 = double(s[32]);
  std::printf("loaded at %.0f cycles; per leaf: start, factored, barrier, next leaf's columns updated (cycles from start)\n",
              double(s[33]) - t0);
  for (int j = 0; j * 16 < m; ++j)
    std::printf("  leaf %d: %7.0f %7.0f %7.0f %7.0f | factor %5.0f  to barrier %5.0f  next columns %5.0f\n", j,
                double(s[4 * j]) - t0, double(s[4 * j + 1]) - t0, double(s[4 * j + 2]) - t0,
                (j + 1) * 16 < m ? double(s[4 * j + 3]) - t0 : -1.0, double(s[4 * j + 1]) - double(s[4 * j]),
                double(s[4 * j + 2]) - double(s[4 * j + 1]),
                (j + 1) * 16 < m ? double(s[4 * j + 3]) - double(s[4 * j + 2]) : 0.0);
  std::printf("update warps: previous leaf's update and stores done at (cycles from start):");
  for (int j = 0; (j + 1) * 16 < m; ++j) std::printf(" %.0f", double(s[40 + j]) - t0);
  std::printf("\nend at %.0f cycles\n", double(s[34]) - t0);
  return 0;
}
