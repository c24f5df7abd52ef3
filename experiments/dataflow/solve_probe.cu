// The dataflow chain's tile solve, alone (session 33, docs/cholesky-log.md).
// Inside the dataflow kernel the solve X L^T = C of one 64 x 64 tile takes
// ~12 k SM cycles (~190 per substitution step), ~6 us of the ~9 us between
// a diagonal tile's store and the next tile's release. The design predicts
// ~40 cycles per step (FMUL, shuffle, FMA). This probe runs the solve in one
// 256-thread block on an otherwise idle GPU, several passes in a row (the
// code warm after the first), in four forms:
//   0  solve_tile<false>: 4 lanes per row, the solved element broadcast by
//      __shfl_sync, the step loop fully unrolled (what the kernel runs);
//   1  solve_tile<true>: the same with the outer loop over 16-column groups
//      rolled (DF_ROLL=1);
//   2  solve_tile_rows: one thread per row (64 threads), no shuffles: each
//      step scales x_c and updates the row's later elements with broadcast
//      loads of column c of L. ~2080 FMAs per thread, issue-bound if the
//      shuffle chain was the cost;
//   3  solve_blocked64: 16-column blocks, one block per pair of warps, L
//      read by broadcast, a barrier per block (the library's, in
//      solvers/src/cuda/potrf_diag_split.cuh). Session 33: 5.5 k cycles,
//      against 13.7-14.3 k for form 0 and 6.5 k for form 2.
// It prints cycles per pass and max |X - X_float64| / max |X| per form.
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/solve_probe.cu \
//     -o .carry/solve_probe
// Run: ./solve_probe [form ...] (default 0 1 2 3).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../common/probe_util.cuh"
#include "dataflow_tiles.cuh"

namespace {

using namespace dataflow;

// One thread per row r < 64: x = C(r, :), then for c = 0 .. 63: x_c /= L(c, c),
// x_k -= x_c L(k, c) for k > c (column c of L from shared memory, the same
// address for every thread: broadcast).
__device__ inline void solve_tile_rows(float* S, const float* Lt, const float* rinv) {
  const int r = threadIdx.x;
  if (r >= TS) return;
  float x[TS];
#pragma unroll
  for (int c = 0; c < TS; ++c) x[c] = S[c * kLd + r];
#pragma unroll
  for (int c = 0; c < TS; ++c) {
    x[c] *= rinv[c];
#pragma unroll
    for (int k4 = (c + 1) / 4; k4 < TS / 4; ++k4) {
      const float4 m = *reinterpret_cast<const float4*>(&Lt[c * kLd + 4 * k4]);
      const float mv[4] = {m.x, m.y, m.z, m.w};
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (4 * k4 + e > c) x[4 * k4 + e] -= x[c] * mv[e];
    }
  }
#pragma unroll
  for (int c = 0; c < TS; ++c) S[c * kLd + r] = x[c];
}

__global__ void solve_probe_kernel(const float* L, const float* C, int form, int reps,
                                   unsigned long long* cycles, float* X) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* S = reinterpret_cast<float*>(smem_raw);
  float* Lt = S + kTile;
  float* rinv = Lt + kTile;
  const int t = threadIdx.x;
  for (int e = t; e < TS * TS; e += kThreads) Lt[(e / TS) * kLd + e % TS] = L[e];
  __syncthreads();
  if (t < TS) rinv[t] = 1.f / Lt[t * kLd + t];
  for (int rep = 0; rep < reps; ++rep) {
    for (int e = t; e < TS * TS; e += kThreads) S[(e / TS) * kLd + e % TS] = C[e];
    __syncthreads();
    const unsigned long long c0 = clock64();
    if (form == 0)
      solve_tile<false>(S, Lt, rinv);
    else if (form == 1)
      solve_tile<true>(S, Lt, rinv);
    else if (form == 2)
      solve_tile_rows(S, Lt, rinv);
    else
      solve_blocked64(S, Lt, rinv);
    __syncthreads();
    const unsigned long long c1 = clock64();
    if (t == 0) cycles[rep] = c1 - c0;
  }
  for (int e = t; e < TS * TS; e += kThreads) X[e] = S[(e / TS) * kLd + e % TS];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> forms;
  for (int a = 1; a < argc; ++a) forms.push_back(std::atoi(argv[a]));
  if (forms.empty()) forms = {0, 1, 2, 3};
  const int n = TS, reps = 4;
  // L: the Cholesky factor (float64 on the host) of an SPD tile; C random.
  std::vector<float> hA(n * n), hL(n * n, 0.f), hC(n * n), hX(n * n);
  {
    float* A0;
    CK(cudaMalloc(&A0, sizeof(float) * n * n));
    probe_make_spd<<<16, 256>>>(A0, n, 11);
    CK(cudaMemcpy(hA.data(), A0, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
    CK(cudaFree(A0));
  }
  const std::vector<double> R = probe_cholesky_f64(hA, n);
  for (int e = 0; e < n * n; ++e) hL[e] = float(R[e]);
  unsigned h = 12345u;
  for (auto& v : hC) {
    h = h * 1664525u + 1013904223u;
    v = float(h >> 8) / float(1 << 24) * 2.f - 1.f;
  }
  // X_float64: X L^T = C row by row, with the float L.
  std::vector<double> Xr(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      double v = hC[r + c * n];
      for (int k = 0; k < c; ++k) v -= Xr[r + k * n] * hL[c + k * n];
      Xr[r + c * n] = v / hL[c + c * n];
    }
  float *dL, *dC, *dX;
  unsigned long long* dcyc;
  CK(cudaMalloc(&dL, sizeof(float) * n * n));
  CK(cudaMalloc(&dC, sizeof(float) * n * n));
  CK(cudaMalloc(&dX, sizeof(float) * n * n));
  CK(cudaMalloc(&dcyc, sizeof(unsigned long long) * reps));
  CK(cudaMemcpy(dL, hL.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC, hC.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice));
  const int smem = int(sizeof(float) * (2 * kTile + TS));
  CK(cudaFuncSetAttribute(solve_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  for (int form : forms) {
    for (int launch = 0; launch < 2; ++launch) {
      CK(cudaMemset(dX, 0xff, sizeof(float) * n * n));  // poisoned (NaN)
      solve_probe_kernel<<<1, kThreads, smem>>>(dL, dC, form, reps, dcyc, dX);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      unsigned long long cyc[reps];
      CK(cudaMemcpy(cyc, dcyc, sizeof(cyc), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(hX.data(), dX, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
      double err = 0, mx = 0;
      for (int e = 0; e < n * n; ++e) {
        const double d = std::fabs(double(hX[e]) - Xr[e]);
        err = std::isnan(hX[e]) ? INFINITY : std::max(err, d);
        mx = std::max(mx, std::fabs(Xr[e]));
      }
      std::printf("solve form %d, launch %d: cycles per pass", form, launch);
      for (int r = 0; r < reps; ++r) std::printf(" %llu", cyc[r]);
      std::printf("; max |X - X_float64| / max |X| = %.2e\n", err / mx);
    }
  }
  return 0;
}
