#pragma once
// The tile operations of the dataflow Cholesky probe (dataflow_potrf.cu) and
// of its instruction-fetch probe (fetch_probe.cu): 64 x 64 float tiles in
// shared memory, column-major with stride kLd, 256-thread blocks.
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/cuda_cp_async.cuh"
#include "dla/core/cuda_tf32.cuh"
#include "../../solvers/src/cuda/potrf_diag_split.cuh"

namespace dataflow {

using dla::cuda::detail::cp_async16n;
using dla::cuda::detail::cp_async_commit;
using dla::cuda::detail::cp_async_wait;
using dla::cuda::detail::mma_tf32x3_n4;
using dla::cuda::detail::split_tf32;

constexpr int TS = 64;        // tile order
constexpr int kThreads = 256;
constexpr int kLd = TS + 8;   // shared row stride (floats): fragment loads on bank 8 t + g
constexpr int kTile = TS * kLd;

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ int load_acquire(const int* flag) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

__device__ __forceinline__ void spin(const int* flag) {
  while (load_acquire(flag) == 0) __nanosleep(32);
}

// Thread 0 waits for both flags (acquire), then the block passes a barrier.
__device__ inline void wait_done(const int* f1, const int* f2) {
  if (threadIdx.x == 0) {
    spin(f1);
    spin(f2);
  }
  __syncthreads();
}

// Every thread's stores are done (barrier), then thread 0 releases the flag.
__device__ inline void set_done(int* flag) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(1) : "memory");
  }
}

// The 64 x 64 tile at (r0, c0) of column-major A (leading dimension lda)
// into dst[kk * kLd + r] by cp.async.cg (L2: another SM wrote it during this
// kernel); no commit.
__device__ inline void load_tile_async(float* dst, const float* A, int lda, int r0, int c0) {
  for (int v = threadIdx.x; v < TS * TS / 4; v += kThreads) {
    const int kk = v / (TS / 4), r = 4 * (v % (TS / 4));
    cp_async16n(dst + kk * kLd + r, A + (r0 + r) + size_t(c0 + kk) * lda, 16);
  }
}

// The 8-warp layout of a 64 x 64 tile in 3xTF32 mma.sync m16n8k8 fragments:
// warp w owns rows rm = 16 (w % 4) .. + 15 and columns cn = 32 (w / 4) .. + 31
// as 4 n8 pieces; acc[nj][e] holds (rm + g + 8 (e >> 1), cn + 8 nj + 2 t +
// (e & 1)), lane = 4 g + t.
__device__ __forceinline__ int warp_rm() { return 16 * ((threadIdx.x / 32) % 4); }
__device__ __forceinline__ int warp_cn() { return 32 * (threadIdx.x / 128); }

__device__ __forceinline__ void zero(float (&acc)[4][4]) {
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) acc[a][b] = 0.f;
}

// acc += Li Lj^T over one 64-deep operand pair (Li[kk * kLd + r], Lj likewise).
__device__ __forceinline__ void tile_product(float (&acc)[4][4], const float* Li, const float* Lj) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, rm = warp_rm(), cn = warp_cn();
#pragma unroll 2
  for (int kk = 0; kk < TS; kk += 8) {
    unsigned ah[4], al[4], bh[4][2], bl[4][2];
#pragma unroll
    for (int r = 0; r < 4; ++r)
      split_tf32(Li[(kk + t + 4 * (r >> 1)) * kLd + rm + g + 8 * (r & 1)], ah[r], al[r]);
#pragma unroll
    for (int nj = 0; nj < 4; ++nj)
#pragma unroll
      for (int r = 0; r < 2; ++r)
        split_tf32(Lj[(kk + t + 4 * r) * kLd + cn + 8 * nj + g], bh[nj][r], bl[nj][r]);
    mma_tf32x3_n4(acc, ah, al, bh, bl);
  }
}

// S(r, c) = C(r, c) - acc for the fragment's elements: S column-major with
// stride kLd, C the tile of A at C (leading dimension lda).
__device__ __forceinline__ void subtract_into(float* S, const float* C, int lda,
                                              const float (&acc)[4][4]) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, rm = warp_rm(), cn = warp_cn();
#pragma unroll
  for (int nj = 0; nj < 4; ++nj)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int r = rm + g + 8 * (e >> 1), c = cn + 8 * nj + 2 * t + (e & 1);
      S[c * kLd + r] = C[r + size_t(c) * lda] - acc[nj][e];
    }
}

// The warp factorization of a 64 x 64 tile is the library's warp_factor64
// (solvers/src/cuda/potrf_diag_split.cuh, session 33; the same code as the
// probe's full unroll). Session 32's rolled forms (factor_tile_warp_rolled<B>,
// B = 16 / 8 / 4: 51.1 / 31.5 / 20.1 KB of SASS against 71.7) ran 3.8-5x
// slower in session 33 and were removed (they are in 279c500).
using dla::cuda::detail::warp_factor64;

// The tile in S (column-major, stride kLd) back to A (all of it, or its
// lower triangle).
__device__ inline void store_tile(const float* S, float* A, int lda, int r0, int c0,
                                  bool lower) {
  for (int e = threadIdx.x; e < TS * TS; e += kThreads) {
    const int r = e % TS, p = e / TS;
    if (!lower || r >= p) A[(r0 + r) + size_t(c0 + p) * lda] = S[p * kLd + r];
  }
}

// X L^T = C for the 64 x 64 tile C in S (column-major), L lower in Lt
// (column-major), rinv[c] = 1 / L(c, c), by forward substitution: row
// r = t / 4, part g = t % 4 owns columns 16 g .. 16 g + 15 in registers; X
// goes back into S. Roll: the loop over the four 16-column parts is rolled
// (a quarter of the code; the fully unrolled form is ~2 k instructions).
template <bool Roll>
__device__ inline void solve_tile(float* S, const float* Lt, const float* rinv) {
  const int t = threadIdx.x, r = t / 4, g = t % 4, src = (threadIdx.x & 31) & ~3;
  float x[16];
#pragma unroll
  for (int q = 0; q < 16; ++q) x[q] = S[(16 * g + q) * kLd + r];
#pragma unroll(Roll ? 1 : 4)
  for (int gi = 0; gi < 4; ++gi) {
#pragma unroll
    for (int qi = 0; qi < 16; ++qi) {
      const int col = 16 * gi + qi;
      const float v = __shfl_sync(0xffffffffu, x[qi] * rinv[col], src | gi);
      if (g == gi) x[qi] = v;
      if (g >= gi) {
#pragma unroll
        for (int q4 = 0; q4 < 4; ++q4) {
          const float4 m = *reinterpret_cast<const float4*>(&Lt[col * kLd + 16 * g + 4 * q4]);
          const float mv[4] = {m.x, m.y, m.z, m.w};
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (g > gi || 4 * q4 + e > qi) x[4 * q4 + e] -= v * mv[e];
        }
      }
    }
  }
#pragma unroll
  for (int q = 0; q < 16; ++q) S[(16 * g + q) * kLd + r] = x[q];
}

// The solve by 16-column blocks (session 33, 2.5x faster than solve_tile) is
// the library's solve_blocked64 (potrf_diag_split.cuh).
using dla::cuda::detail::solve_blocked64;

}  // namespace dataflow
