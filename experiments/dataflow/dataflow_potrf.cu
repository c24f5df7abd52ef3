// A tile-dataflow Cholesky probe (lower, float, n % 64 == 0), the design
// cuSOLVER's spotrf runs at n <= 4096 (docs/cholesky.md, session 31): ONE
// launch, one 256-thread block per 64 x 64 tile of the lower triangle, tiles
// taken in column-major order, each tile left-looking:
//   C = A(i, j) - sum_{k < j} L(i, k) L(j, k)^T   (waits for tiles (i, k), (j, k))
//   i == j: C = chol(C)                            (in shared memory)
//   i >  j: C = C L(j, j)^-T                       (waits for tile (j, j))
// and a done flag per tile. Blocks take their tile from a ticket counter
// (atomicAdd), so a tile is only ever waited for after a running block has
// taken it: every wait ends even if the hardware dispatched blocks out of
// order.
//
// What it is for: the first measurement of session 31's sketch. Its
// arithmetic is plain (CUDA-core FMAs, shared-memory operands, a diagonal
// factorization with two barriers per column), so its absolute time says
// little; what it shows is the critical chain per 64 columns when the
// accumulation runs beside it in the same grid, without streams or
// partitions: the stamps give, per tile column, when the diagonal tile was
// done.
//
// PREPARED IN SESSION 31, NOT YET RUN: the device time of that session was
// spent; it compiles here (nvcc 13.0, sm_90), nothing more is known.
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 experiments/dataflow/dataflow_potrf.cu -lcusolver \
//     -o .carry/dataflow_potrf
// Run: ./dataflow_potrf [n ...]   (default 2048 4096; n a multiple of 64)
// Prints per n: the median of 10 runs and cuSOLVER's, the largest difference
// between the two factors relative to max |L|, info, and the chain: when each
// diagonal tile was done (us from the kernel's first stamp), per 8 tile
// columns.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/probe_util.cuh"

namespace {

constexpr int TS = 64;        // tile order
constexpr int kThreads = 256;
constexpr int kLd = TS + 4;   // shared row stride (floats), 16-byte aligned rows

struct Smem {
  float Li[TS][kLd];  // Li[kk][r] = L(i0 + r, k0 + kk)  (operand tile of row block i)
  float Lj[TS][kLd];  // Lj[kk][c] = L(j0 + c, k0 + kk)  (row block j; the diagonal tile for the solve)
  float S[TS][kLd];   // S[c][r] = C(r, c): the tile being finished
  float rinv[TS];
};

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Thread 0 waits for flag == 1 (acquire), then the block passes a barrier.
__device__ void wait_done(const int* flag) {
  if (threadIdx.x == 0) {
    for (;;) {
      int v;
      asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
      if (v != 0) break;
      __nanosleep(64);
    }
  }
  __syncthreads();
}

// Every thread's stores of the tile are done (barrier), then thread 0
// releases the flag.
__device__ void set_done(int* flag) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(1) : "memory");
  }
}

// The 64 x 64 tile at (r0, c0) of column-major A into dst[kk][r] (kk = column),
// through L2 only (ld.global.cg): another SM wrote it during this kernel.
__device__ void load_tile(float (*dst)[kLd], const float* A, int lda, int r0, int c0) {
  for (int v = threadIdx.x; v < TS * TS / 4; v += kThreads) {
    const int kk = v / (TS / 4), r = 4 * (v % (TS / 4));
    const float4 x = __ldcg(reinterpret_cast<const float4*>(A + (r0 + r) + size_t(c0 + kk) * lda));
    *reinterpret_cast<float4*>(&dst[kk][r]) = x;
  }
}

__global__ void __launch_bounds__(kThreads)
    dataflow_potrf_kernel(float* A, int lda, int T, int* ticket, int* done, int* info,
                          unsigned long long* stamps, int skip_math) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(smem_raw);
  __shared__ int s_tile;
  const int t = threadIdx.x;
  if (t == 0) s_tile = atomicAdd(ticket, 1);
  __syncthreads();
  // Tile number -> (i, j), column-major over the lower triangle.
  int j = 0, rest = s_tile;
  while (rest >= T - j) {
    rest -= T - j;
    ++j;
  }
  const int i = j + rest;
  const int i0 = TS * i, j0 = TS * j;

  // C in registers: rows tr + 16 a, columns tc + 16 b (a, b < 4).
  const int tr = t / 16, tc = t % 16;
  float c[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) c[a][b] = A[(i0 + tr + 16 * a) + size_t(j0 + tc + 16 * b) * lda];

  // Left-looking accumulation over the tile columns k < j.
  for (int k = 0; k < j; ++k) {
    wait_done(&done[i * T + k]);
    wait_done(&done[j * T + k]);
    load_tile(sm.Li, A, lda, i0, TS * k);
    load_tile(sm.Lj, A, lda, j0, TS * k);
    __syncthreads();
    if (skip_math) {  // timing only: the waits and loads without the products
      __syncthreads();
      continue;
    }
#pragma unroll 4
    for (int kk = 0; kk < TS; ++kk) {
      float x[4], y[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) x[a] = sm.Li[kk][tr + 16 * a];
#pragma unroll
      for (int b = 0; b < 4; ++b) y[b] = sm.Lj[kk][tc + 16 * b];
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) c[a][b] -= x[a] * y[b];
    }
    __syncthreads();  // Li / Lj are reloaded next k
  }
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) sm.S[tc + 16 * b][tr + 16 * a] = c[a][b];
  __syncthreads();

  if (i == j) {
    if (t == 0 && stamps != nullptr) stamps[T + j] = gtimer();
    // Right-looking Cholesky of S (lower), two barriers per column.
    for (int q = 0; q < TS; ++q) {
      const float piv = sm.S[q][q];
      if (!(piv > 0.f)) {  // uniform: every thread read the same value after the barrier
        if (t == 0) atomicMin(info, i0 + q + 1);
        break;
      }
      const float d = sqrtf(piv), inv = 1.f / d;
      __syncthreads();  // every thread has read the pivot
      if (t < TS) {
        if (t > q) sm.S[q][t] *= inv;
        if (t == q) sm.S[q][q] = d;
      }
      __syncthreads();  // column q is final
      // Trailing lower triangle: S[p][r] -= L(r, q) L(p, q) for q < p <= r.
      for (int e = t; e < TS * TS; e += kThreads) {
        const int r = e % TS, p = e / TS;
        if (p > q && r >= p) sm.S[p][r] -= sm.S[q][r] * sm.S[q][p];
      }
      __syncthreads();
    }
    __syncthreads();
    // The lower triangle back (the other one untouched); a failed tile keeps
    // what it has (the columns before the failing one are L).
    for (int e = t; e < TS * TS; e += kThreads) {
      const int r = e % TS, p = e / TS;
      if (r >= p) A[(i0 + r) + size_t(j0 + p) * lda] = sm.S[p][r];
    }
    if (t == 0 && stamps != nullptr) stamps[j] = gtimer();
  } else {
    // X L(j, j)^T = C: the diagonal tile into Lj (Lj[c][r] = L(j0 + r, j0 + c)).
    wait_done(&done[j * T + j]);
    load_tile(sm.Lj, A, lda, j0, j0);
    __syncthreads();
    if (t < TS) sm.rinv[t] = 1.f / sm.Lj[t][t];
    __syncthreads();
    // Row r = t / 4, part g = t % 4 owns columns 16 g .. 16 g + 15 in x[].
    const int r = t / 4, g = t % 4;
    float x[16];
#pragma unroll
    for (int q = 0; q < 16; ++q) x[q] = sm.S[16 * g + q][r];
#pragma unroll
    for (int col = 0; col < TS; ++col) {
      const int gi = col / 16, qi = col % 16;
      const float v = __shfl_sync(0xffffffffu, x[qi] * sm.rinv[col], (threadIdx.x & 31 & ~3) | gi);
      if (g == gi) x[qi] = v;
#pragma unroll
      for (int q = 0; q < 16; ++q)
        if (16 * g + q > col) x[q] -= v * sm.Lj[col][16 * g + q];
    }
#pragma unroll
    for (int q = 0; q < 16; ++q) A[(i0 + r) + size_t(j0 + 16 * g + q) * lda] = x[q];
  }
  set_done(&done[i * T + j]);
  if (i == j + 1 && t == 0 && stamps != nullptr) stamps[2 * T + j] = gtimer();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int a = 1; a < argc; ++a) sizes.push_back(std::atoi(argv[a]));
  if (sizes.empty()) sizes = {2048, 4096};
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cusolverDnHandle_t h;
  if (cusolverDnCreate(&h) != CUSOLVER_STATUS_SUCCESS) return 1;
  cusolverDnSetStream(h, s);
  const int smem = int(sizeof(Smem));
  CK(cudaFuncSetAttribute(dataflow_potrf_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  for (int n : sizes) {
    if (n % TS != 0) {
      std::printf("n=%d: not a multiple of %d, skipped\n", n, TS);
      continue;
    }
    const int T = n / TS, tiles = T * (T + 1) / 2;
    float *A0, *A, *R, *work;
    int *ticket, *done, *info, *vinfo;
    unsigned long long* stamps;
    CK(cudaMalloc(&A0, sizeof(float) * n * n));
    CK(cudaMalloc(&A, sizeof(float) * n * n));
    CK(cudaMalloc(&R, sizeof(float) * n * n));
    CK(cudaMalloc(&ticket, sizeof(int)));
    CK(cudaMalloc(&done, sizeof(int) * T * T));
    CK(cudaMalloc(&info, sizeof(int)));
    CK(cudaMalloc(&vinfo, sizeof(int)));
    CK(cudaMalloc(&stamps, sizeof(unsigned long long) * 3 * T));
    probe_make_spd<<<1024, 256, 0, s>>>(A0, n, 7);
    int lw = 0;
    cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, R, n, &lw);
    CK(cudaMalloc(&work, sizeof(float) * std::max(lw, 1)));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int skip = 0;
    auto run = [&](bool ours, bool stamp) {
      CK(cudaMemcpyAsync(ours ? A : R, A0, sizeof(float) * n * n, cudaMemcpyDeviceToDevice, s));
      CK(cudaMemsetAsync(ticket, 0, sizeof(int), s));
      CK(cudaMemsetAsync(done, 0, sizeof(int) * T * T, s));
      const int big = 0x7fffffff;
      CK(cudaMemcpyAsync(info, &big, sizeof(int), cudaMemcpyHostToDevice, s));
      CK(cudaEventRecord(e0, s));
      if (ours)
        dataflow_potrf_kernel<<<tiles, kThreads, smem, s>>>(A, n, T, ticket, done, info,
                                                           stamp ? stamps : nullptr, skip);
      else
        cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, R, n, work, lw, vinfo);
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      return ms;
    };
    double med[2];
    for (int lib = 0; lib < 2; ++lib) {
      std::vector<float> t;
      for (int it = 0; it < 13; ++it) {
        const float ms = run(lib == 0, false);
        if (it >= 3) t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      med[lib] = t[t.size() / 2];
    }
    run(true, true);
    run(false, false);
    std::vector<float> hA(size_t(n) * n), hR(size_t(n) * n);
    CK(cudaMemcpy(hA.data(), A, sizeof(float) * hA.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hR.data(), R, sizeof(float) * hR.size(), cudaMemcpyDeviceToHost));
    int hinfo = 0;
    CK(cudaMemcpy(&hinfo, info, sizeof(int), cudaMemcpyDeviceToHost));
    double diff = 0, mx = 0;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        const size_t e = i + size_t(j) * n;
        diff = std::max(diff, double(std::fabs(hA[e] - hR[e])));
        mx = std::max(mx, double(std::fabs(hR[e])));
      }
    // The chain: per tile column j, diagonal tile j-1 done -> sub-diagonal
    // tile (j, j-1) done -> diagonal tile j accumulated -> diagonal tile j done.
    auto chain = [&](const char* what) {
      std::vector<unsigned long long> st(3 * T);
      CK(cudaMemcpy(st.data(), stamps, sizeof(unsigned long long) * 3 * T, cudaMemcpyDeviceToHost));
      std::printf("  %s: diagonal tile j done (us from tile 0's):", what);
      for (int j = 0; j < T; j += 8) std::printf(" %d:%.1f", j, (st[j] - st[0]) * 1e-3);
      std::printf(" %d:%.1f; per tile column %.2f us\n", T - 1, (st[T - 1] - st[0]) * 1e-3,
                  T > 1 ? (st[T - 1] - st[0]) * 1e-3 / (T - 1) : 0.0);
      for (int q = 0; q < 4 && T >= 8; ++q) {  // the chain's parts, mean over quarters of j
        const int jb = std::max(1, q * T / 4), je = (q + 1) * T / 4;
        double solve = 0, acc = 0, chol = 0;
        for (int j = jb; j < je; ++j) {
          solve += double(st[2 * T + j - 1] - st[j - 1]);
          acc += double(st[T + j]) - double(st[2 * T + j - 1]);
          chol += double(st[j] - st[T + j]);
        }
        const double c = 1e-3 / (je - jb);
        std::printf("    j %d..%d: solve %.2f, last update %.2f, diagonal %.2f us\n", jb, je - 1,
                    solve * c, acc * c, chol * c);
      }
    };
    std::printf("n=%d tiles=%d smem=%d: dataflow %.3f ms, cusolver %.3f ms (ratio %.2fx), "
                "max |L - L_cusolver| / max |L| = %.2e, info %s\n",
                n, tiles, smem, med[0], med[1], med[1] / med[0], diff / mx,
                hinfo == 0x7fffffff ? "none" : std::to_string(hinfo).c_str());
    chain("full");
    skip = 1;
    std::vector<float> ts;
    for (int it = 0; it < 8; ++it) ts.push_back(run(true, false));
    std::sort(ts.begin(), ts.end());
    run(true, true);
    std::printf("  products left out (timing only): %.3f ms\n", ts[ts.size() / 2]);
    chain("no products");
    for (void* p : {(void*)A0, (void*)A, (void*)R, (void*)work, (void*)ticket, (void*)done,
                    (void*)info, (void*)vinfo, (void*)stamps})
      CK(cudaFree(p));
  }
  return 0;
}
