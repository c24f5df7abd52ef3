// Instruction-fetch probe for the dataflow Cholesky's warp factorization
// (session 32, docs/cholesky-log.md). One warp factors the same 64 x 64 SPD tile
// four times in a row, stamping each pass in ns (%globaltimer) and SM cycles
// (clock64), three launches:
//   fetch_probe        the warp alone on the GPU;
//   fetch_probe hogs   also beside 131 blocks (one per other SM, 200 KB of
//                      shared memory each so the probe gets an SM of its own)
//                      that stream loads through L2, poll a word as the
//                      dataflow kernel's waiting blocks do, or spin on FMAs.
// Measured on the H200 (session 32): 10.6-11.4 k cycles per pass in every
// case, the first pass of the first launch 13 k. So neither L2 traffic nor
// pollers nor busy neighbours on other SMs slow it, and its ~66 KB of
// straight-line code, once fetched, stays fetched from pass to pass and from
// launch to launch. Inside the dataflow kernel, where the first block on an
// SM to run it meets it cold, the same code took 26.5-35.5 k cycles, and
// 13.0-14.8 k when run a second time (DF_TWICE in v7, ea37be9).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/fetch_probe.cu \
//     -o .carry/fetch_probe
// Run: ./fetch_probe [hogs]: the load beside it; it also prints the last
// pass's factor against a float64 Cholesky of the tile. (Session 33 measured
// the rolled factorizations this probe also took then: 3.8-5x slower, removed.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../common/probe_util.cuh"
#include "dataflow_tiles.cuh"

namespace {

using namespace dataflow;

// The factorization's instruction-fetch probe: one warp factors the same
// SPD tile `reps` times in a row (the tile reloaded each time), stamping
// each; if the first pass is much slower than the later ones, the straight-
// line code's fetch, not its arithmetic, sets the cost.
__global__ void factor_fetch_probe(const float* A, int lda, int reps,
                                   unsigned long long* out, float* L) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* S = reinterpret_cast<float*>(smem_raw);
  for (int rep = 0; rep < reps; ++rep) {
    for (int e = threadIdx.x; e < TS * TS; e += 32)
      S[(e / TS) * kLd + e % TS] = A[(e % TS) + size_t(e / TS) * lda];
    __syncwarp();
    const unsigned long long t0 = gtimer(), c0 = clock64();
    const int f = warp_factor64(S);
    __syncwarp();
    const unsigned long long t1 = gtimer(), c1 = clock64();
    if (threadIdx.x == 0) {
      out[2 * rep] = t1 - t0 + (f != 0 ? 1000000000ull : 0ull);
      out[2 * rep + 1] = c1 - c0;
    }
  }
  for (int e = threadIdx.x; e < TS * TS; e += 32) L[e] = S[(e / TS) * kLd + e % TS];
}

// Load beside the fetch probe (`fetch_probe hogs`): every other SM runs one
// block that, until *stop is set, either streams loads through L2 (kind 1),
// polls one word with ld.acquire + __nanosleep as the dataflow kernel's
// waiting blocks do (kind 2), or spins on FMAs with no memory traffic (kind 3).
__global__ void hog_kernel(const float* buf, size_t len, const int* stop, int kind, float* sink) {
  float acc = 0.f;
  size_t e = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  for (int it = 0;; ++it) {
    if ((it & 63) == 0 && load_acquire(stop) != 0) break;
    if (kind == 1) {
      const float4 v = __ldcg(reinterpret_cast<const float4*>(buf + e));
      acc += v.x + v.y + v.z + v.w;
      e = (e + size_t(gridDim.x) * blockDim.x * 4) % len;
    } else if (kind == 2) {
      if (threadIdx.x == 0) acc += float(load_acquire(stop + 1));
      __nanosleep(32);
    } else {
#pragma unroll 16
      for (int q = 0; q < 64; ++q) acc = fmaf(acc, 0.999f, 1.f);
    }
  }
  if (acc == 12345.f) *sink = acc;
}

}  // namespace

int main(int argc, char** argv) {
  // Argument: "hogs" (the loads beside).
  bool hogs = false;
  for (int a = 1; a < argc; ++a)
    if (std::strcmp(argv[a], "hogs") == 0) hogs = true;
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  const int n = 64, reps = 4;
  float* A0;
  float* L;
  unsigned long long* out;
  CK(cudaMalloc(&A0, sizeof(float) * n * n));
  CK(cudaMalloc(&L, sizeof(float) * n * n));
  CK(cudaMalloc(&out, sizeof(unsigned long long) * 2 * reps));
  probe_make_spd<<<16, 256, 0, s>>>(A0, n, 7);
  CK(cudaFuncSetAttribute(factor_fetch_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kTile * 4));
  float* buf;
  int* stop;
  const size_t len = size_t(16) << 20;  // 64 MB of floats: streams through L2
  CK(cudaMalloc(&buf, sizeof(float) * len));
  CK(cudaMemset(buf, 0, sizeof(float) * len));
  CK(cudaMalloc(&stop, 2 * sizeof(int)));
  CK(cudaFuncSetAttribute(hog_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  cudaStream_t s2;
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  for (int kind = 0; kind <= (hogs ? 3 : 0); ++kind) {
    CK(cudaMemset(stop, 0, 2 * sizeof(int)));
    CK(cudaDeviceSynchronize());
    // 200 KB of shared memory per hog block: nothing else fits beside it,
    // so the probe runs on the one SM left.
    if (kind > 0) hog_kernel<<<131, 256, 200 * 1024, s2>>>(buf, len, stop, kind, buf);
    for (int launch = 0; launch < 3; ++launch) {
      factor_fetch_probe<<<1, 32, kTile * 4, s>>>(A0, n, reps, out, L);
      CK(cudaStreamSynchronize(s));
      unsigned long long h[2 * reps];
      CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
      std::printf("factorization, %s, launch %d, passes (us / cycles):",
                  kind == 0   ? "alone"
                  : kind == 1 ? "beside L2 streaming"
                  : kind == 2 ? "beside pollers"
                              : "beside FMA spinners",
                  launch);
      for (int r = 0; r < reps; ++r) std::printf(" %.2f / %llu", h[2 * r] * 1e-3, h[2 * r + 1]);
      std::printf("\n");
    }
    const int one = 1;
    CK(cudaMemcpy(stop, &one, sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
  }
  // The factor against a float64 Cholesky of the same tile.
  std::vector<float> hA(n * n), hL(n * n);
  CK(cudaMemcpy(hA.data(), A0, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hL.data(), L, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
  const std::vector<double> R = probe_cholesky_f64(hA, n);
  double err = 0, mx = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = j; i < n; ++i) {
      err = std::max(err, std::fabs(double(hL[i + j * n]) - R[i + j * n]));
      mx = std::max(mx, std::fabs(R[i + j * n]));
    }
  }
  std::printf("factorization: max |L - L_float64| / max |L| = %.2e\n", err / mx);
  return 0;
}
