#pragma once
// The tile operations of the dataflow Cholesky probe (dataflow_potrf.cu) and
// of its instruction-fetch probe (fetch_probe.cu): 64 x 64 float tiles in
// shared memory, column-major with stride kLd, 256-thread blocks.
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/cuda_cp_async.cuh"
#include "dla/core/cuda_tf32.cuh"

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

// Right-looking Cholesky of S's lower triangle by one warp: lane l holds
// rows l (columns < 32) and l + 32 in registers; column q of L goes to S,
// and the lanes read it back (broadcast) for the rank-1 update. Returns the
// failing column + 1, or 0. B of the 64 steps are in the code: the columns
// run as 64 / B rolled blocks of B unrolled steps, and after each block the
// registers shift down by B columns (x1[k] = x1[k + B]), so that the current
// block always sits at compile-time indices 0 .. B - 1.
//  - B = 64 (factor_tile_warp below) is the full unroll every session-32
//    measurement used (byte-identical SASS to the version before B existed):
//    ~70 KB, which cost 7-11 us to fetch cold inside the dataflow kernel.
//  - B = 16, 8, 4: 51.1, 31.5, 20.1 KB (SASS of one-warp test kernels,
//    readelf on the cubin), for ~1.75x to ~2.5x the FMAs (each step updates
//    every later column in range, predicated by block). Their index
//    arithmetic was checked against a float64 Cholesky by a lane-by-lane host
//    simulation (B = 16, 8, 4); NOT yet run on a GPU (fetch_probe.cu checks
//    them).
template <int B>
__device__ inline int factor_tile_warp_rolled(float* S) {
  static_assert(B % 4 == 0 && (32 % B == 0 || B == 64), "B: 4, 8, 16, 32 or 64");
  const int l = threadIdx.x % 32;
  float x0[32], x1[64];
#pragma unroll
  for (int c = 0; c < 32; ++c) x0[c] = S[c * kLd + l];
#pragma unroll
  for (int c = 0; c < 64; ++c) x1[c] = S[c * kLd + l + 32];
#pragma unroll 1
  for (int qb = 0; qb < 64 / B; ++qb) {
    const int lim = 64 - B * qb;  // relative columns still in the tile
#pragma unroll
    for (int qi = 0; qi < B; ++qi) {
      const int q = B * qb + qi;
      const bool lo = qi < 32 && q < 32;  // row q is a row of x0 (uniform within a block for B <= 32)
      float pv = x1[qi];
      if (qi < 32 && lo) pv = x0[qi < 32 ? qi : 0];
      const float piv = __shfl_sync(0xffffffffu, pv, q & 31);
      if (!(piv > 0.f)) return q + 1;  // uniform
      const float inv = rsqrtf(piv), d = piv * inv;
      if (qi < 32 && lo) {
        float& x = x0[qi < 32 ? qi : 0];
        x = l > q ? x * inv : (l == q ? d : x);
        S[q * kLd + l] = x;
      }
      x1[qi] = l + 32 > q ? x1[qi] * inv : (l + 32 == q ? d : x1[qi]);
      S[q * kLd + l + 32] = x1[qi];
      __syncwarp();
#pragma unroll
      for (int c4 = (qi + 1) / 4; c4 < 16; ++c4) {
        if (4 * c4 < lim) {
          const float4 v = *reinterpret_cast<const float4*>(&S[q * kLd + B * qb + 4 * c4]);
          const float vv[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int k = 4 * c4 + e;
            if (k > qi) {
              if (k < 32 && lo && k < 32 - B * qb) x0[k < 32 ? k : 0] -= x0[qi < 32 ? qi : 0] * vv[e];
              x1[k] -= x1[qi] * vv[e];
            }
          }
        }
      }
    }
#pragma unroll
    for (int k = 0; k + B < 64; ++k) x1[k] = x1[k + B];
#pragma unroll
    for (int k = 0; k + B < 32; ++k) x0[k] = x0[k + B];
  }
  return 0;
}

// The full unroll (B = 64).
__device__ inline int factor_tile_warp(float* S) { return factor_tile_warp_rolled<64>(S); }

// The factorization by `froll`: 0 the full unroll, 16 / 8 / 4 the rolled
// forms. Not inlined, so that the kernel's two calls (DF_WARM's warm-up and
// the factorization) run the same code: inlined twice (v8 as first run), the
// warm-up fetched a copy the factorization never ran.
__device__ __noinline__ int factor_tile(float* S, int froll) {
  switch (froll) {
    case 16: return factor_tile_warp_rolled<16>(S);
    case 8: return factor_tile_warp_rolled<8>(S);
    case 4: return factor_tile_warp_rolled<4>(S);
    default: return factor_tile_warp(S);
  }
}

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

// The same solve by 16-column blocks, with each warp's lanes on one block
// (row r = t % 64, block g = t / 64: warps 2 g and 2 g + 1), so that the
// reads of L are one address per warp (broadcast). solve_tile's lanes of one
// warp cover all four blocks, so each of its LDS.128 of L takes four
// shared-memory wavefronts: 4 loads x 4 wavefronts x 8 warps = 128 cycles of
// the shared-memory pipe per substitution step (solve_probe.cu: ~14 k cycles
// for 64 steps, ncu: stalls on MIO). Here, for block gi = 0 .. 3: the warps
// of block gi solve it in registers (16 steps) and write X's columns to S; a
// barrier; the warps of later blocks subtract its product (16 x 16 FMAs per
// thread, X from S by row: conflict-free). The chain per block is one update,
// one 16-step solve and one barrier.
__device__ inline void solve_tile_blocked(float* S, const float* Lt, const float* rinv) {
  const int t = threadIdx.x, r = t % TS, g = t / TS;
  float x[16];
#pragma unroll
  for (int q = 0; q < 16; ++q) x[q] = S[(16 * g + q) * kLd + r];
#pragma unroll 1
  for (int gi = 0; gi < 4; ++gi) {
    if (g == gi) {
      const int c0 = 16 * g;
#pragma unroll
      for (int q = 0; q < 16; ++q) {
        x[q] *= rinv[c0 + q];
#pragma unroll
        for (int p = q + 1; p < 16; ++p) x[p] -= x[q] * Lt[(c0 + q) * kLd + c0 + p];
        S[(c0 + q) * kLd + r] = x[q];
      }
    }
    __syncthreads();
    if (g > gi) {
#pragma unroll
      for (int q = 0; q < 16; ++q) {
        const float xq = S[(16 * gi + q) * kLd + r];
        const float* m = &Lt[(16 * gi + q) * kLd + 16 * g];
#pragma unroll
        for (int p4 = 0; p4 < 4; ++p4) {
          const float4 v = *reinterpret_cast<const float4*>(m + 4 * p4);
          x[4 * p4] -= xq * v.x;
          x[4 * p4 + 1] -= xq * v.y;
          x[4 * p4 + 2] -= xq * v.z;
          x[4 * p4 + 3] -= xq * v.w;
        }
      }
    }
  }
}

}  // namespace dataflow
