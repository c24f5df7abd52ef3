// A 128 x 128 diagonal block factored from the dataflow probe's measured
// parts (session 33, docs/cholesky-log.md), alone on an idle GPU: the question
// is whether the library's critical diagonal block (potrf_diag_tiles_kernel,
// 26-31 us per 128-block, sessions 16-30) could be twice as fast built as
//   1. L11 := chol(A11) by one warp (warp_factor64: ~11.4 k cycles warm);
//   2. L21 := A21 L11^-T by solve_blocked64 (~5.5 k cycles);
//   3. A22 -= L21 L21^T, 4 x 4 outputs per thread on the CUDA cores
//      (the whole 64 x 64 square: no test per element);
//   4. L22 := chol(A22) by one warp.
// Prediction: ~31 k cycles (~16 us at 1.98 GHz). One 256-thread block, the
// block loaded from global memory, SM cycles stamped per part, several
// passes in a row (the code warm after the first), the factor checked
// against a float64 Cholesky of the same block. Measured (session 33):
// 32.7 k cycles (16.5 us) warm, 19.4 us cold; the parts became the library's
// potrf_diag_split_kernel (solvers/src/cuda/potrf_diag_split.cuh).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/diag128_probe.cu \
//     -o .carry/diag128_probe
// Run: ./diag128_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../common/probe_util.cuh"
#include "dataflow_tiles.cuh"

namespace {

using namespace dataflow;

constexpr int kN = 2 * TS;   // the block's order
constexpr int kParts = 5;    // load, factor 11, solve 21, update 22, factor 22

__global__ void diag128_probe_kernel(const float* A, int reps, unsigned long long* cycles,
                                     float* L, int* info) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* S11 = reinterpret_cast<float*>(smem_raw);
  float* S21 = S11 + kTile;
  float* S22 = S21 + kTile;
  float* rinv = S22 + kTile;
  const int t = threadIdx.x;
  for (int rep = 0; rep < reps; ++rep) {
    __syncthreads();
    unsigned long long c[kParts + 1];
    c[0] = clock64();
    for (int e = t; e < TS * TS; e += kThreads) {
      const int r = e % TS, p = e / TS;
      S11[p * kLd + r] = A[r + p * kN];
      S21[p * kLd + r] = A[(TS + r) + p * kN];
      S22[p * kLd + r] = A[(TS + r) + (TS + p) * kN];
    }
    __syncthreads();
    c[1] = clock64();
    int f1 = 0, f2 = 0;
    if (t < 32) f1 = warp_factor64(S11);
    __syncthreads();
    c[2] = clock64();
    if (t < TS) rinv[t] = 1.f / S11[t * kLd + t];
    __syncthreads();
    solve_blocked64(S21, S11, rinv);
    __syncthreads();
    c[3] = clock64();
    dla::cuda::detail::syrk_square64(S22, S21);
    __syncthreads();
    c[4] = clock64();
    if (t < 32) f2 = warp_factor64(S22);
    __syncthreads();
    c[5] = clock64();
    if (t == 0) {
      for (int p = 0; p < kParts; ++p) cycles[rep * kParts + p] = c[p + 1] - c[p];
      *info = f1 != 0 ? f1 : (f2 != 0 ? TS + f2 : 0);
    }
  }
  for (int e = t; e < TS * TS; e += kThreads) {
    const int r = e % TS, p = e / TS;
    L[r + p * kN] = S11[p * kLd + r];
    L[(TS + r) + p * kN] = S21[p * kLd + r];
    L[(TS + r) + (TS + p) * kN] = S22[p * kLd + r];
  }
}

}  // namespace

int main() {
  const int n = kN, reps = 4;
  float *dA, *dL;
  int* dinfo;
  unsigned long long* dcyc;
  CK(cudaMalloc(&dA, sizeof(float) * n * n));
  CK(cudaMalloc(&dL, sizeof(float) * n * n));
  CK(cudaMalloc(&dinfo, sizeof(int)));
  CK(cudaMalloc(&dcyc, sizeof(unsigned long long) * reps * kParts));
  probe_make_spd<<<16, 256>>>(dA, n, 5);
  const int smem = int(sizeof(float) * (3 * kTile + TS));
  CK(cudaFuncSetAttribute(diag128_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<float> hA(n * n), hL(n * n);
  CK(cudaMemcpy(hA.data(), dA, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
  const std::vector<double> R = probe_cholesky_f64(hA, n);
  for (int launch = 0; launch < 3; ++launch) {
    CK(cudaMemset(dL, 0xff, sizeof(float) * n * n));  // poisoned (NaN)
    diag128_probe_kernel<<<1, kThreads, smem>>>(dA, reps, dcyc, dL, dinfo);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned long long cyc[reps * kParts];
    int info = -1;
    CK(cudaMemcpy(cyc, dcyc, sizeof(cyc), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&info, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hL.data(), dL, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
    double err = 0, mx = 0;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        const double v = hL[i + j * n];
        err = std::isnan(v) ? INFINITY : std::max(err, std::fabs(v - R[i + j * n]));
        mx = std::max(mx, std::fabs(R[i + j * n]));
      }
    std::printf("launch %d: info %d, max |L - L_float64| / max |L| = %.2e\n", launch, info, err / mx);
    for (int rep = 0; rep < reps; ++rep) {
      unsigned long long sum = 0;
      std::printf("  pass %d cycles: load %llu, factor 11 %llu, solve 21 %llu, update 22 %llu, factor 22 %llu",
                  rep, cyc[rep * kParts], cyc[rep * kParts + 1], cyc[rep * kParts + 2],
                  cyc[rep * kParts + 3], cyc[rep * kParts + 4]);
      for (int p = 1; p < kParts; ++p) sum += cyc[rep * kParts + p];
      std::printf("; without the load %llu (%.1f us at 1.98 GHz)\n", sum, sum / 1980.0);
    }
  }
  return 0;
}
