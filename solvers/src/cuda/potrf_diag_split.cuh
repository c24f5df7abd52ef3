#pragma once
// potrf_diag_split_kernel: the float diagonal block of order 64 < m <= 128 of
// the blocked Cholesky, split at 64 and factored in shared memory by four
// parts, as a drop-in for potrf_diag_tiles_kernel<float, 128, Upper> (same
// info, offset, progress-flag and uplo contract, potrf_kernels.cuh):
//   1. L11 = chol(A11)        one warp, in registers (warp_factor64);
//   2. L21 = A21 L11^-T       all 8 warps (solve_blocked64); L11 and L21 are
//                             stored and sub-panels 0 and 1 released;
//   3. A22 -= L21 L21^T       all 8 warps, 4 x 4 outputs per thread;
//   4. L22 = chol(A22)        one warp.
// Why (docs/cholesky.md, session 33): alone on an idle H200 the four parts
// took 32.7 k cycles (16.5 us; 19.4 us cold), where the tile kernel takes
// 26-31 us per 128-block, and the diagonal block is on the critical path of
// every step of the look-ahead. But inside the look-ahead spotrf 4096 took
// 1.87 ms with it against 1.52 with the tile kernel, so it is opt-in
// (DLA_POTRF_DIAG_SPLIT=1, potrf.cu). Why is open. One suspect: at 54 KB of
// shared memory and 148 registers per thread, panel, update and GEMM blocks
// can share its SM and slow its one-warp chains (the tile kernel, 4 KB and
// 544 x 80 registers, leaves room too, but spreads its work over 17 warps).
// Not yet measured: the same kernel with the whole SM's shared memory
// requested.
//
// Tiles are 64 x 64 in shared memory, column-major with stride kSplitLd. An
// order m2 = m - 64 < 64 of A22 is padded with an identity (A21's padding
// rows are zero), so every part is unconditional and a padded pivot never
// fails.
//
// A failing pivot (not > 0, NaN included) at column k: info = offset + k + 1.
// In L11, columns < k are stored as L and the rest of the block is left as it
// was; in L22, L11 and L21 are stored, columns < k of L22 too, the rest of
// A22 as updated by L21 (the blocked LAPACK convention: the trailing part is
// partly updated). The panel kernel's flag is released either way.
#include <cuda_runtime.h>

#include "potrf_kernels.cuh"

namespace dla::cuda::detail {

constexpr int kSplitTs = 64;                 // tile order
constexpr int kSplitLd = kSplitTs + 8;       // shared stride (floats), 16-byte aligned
constexpr int kSplitTile = kSplitTs * kSplitLd;
constexpr int kSplitThreads = 256;
constexpr int kSplitFlagUnit = diag_threads<float>() / 32;  // the panel kernel's count per sub-panel
// Dynamic shared memory: S11, S21, S22 and 1 / L11(i, i).
constexpr std::size_t potrf_diag_split_smem_bytes() {
  return sizeof(float) * (3 * kSplitTile + kSplitTs);
}

// Right-looking Cholesky of the 64 x 64 tile S (lower triangle; the strict
// upper part is read as scratch) by one warp: lane l holds row l (columns <
// 32) and row l + 32 in registers; column q of L is written to S and read
// back by every lane (broadcast) for the rank-1 update. Returns the failing
// column + 1 (columns < it are L in S, the rest of S is as it was), or 0.
// Not inlined: a kernel calling it twice runs one copy of its ~70 KB of
// unrolled code (session 33: inlined twice, the second copy is fetched cold).
__device__ __noinline__ inline int warp_factor64(float* S) {
  const int l = threadIdx.x % 32;
  float x0[32], x1[64];
#pragma unroll
  for (int c = 0; c < 32; ++c) x0[c] = S[c * kSplitLd + l];
#pragma unroll
  for (int c = 0; c < 64; ++c) x1[c] = S[c * kSplitLd + l + 32];
#pragma unroll
  for (int q = 0; q < 64; ++q) {
    const float piv = __shfl_sync(0xffffffffu, q < 32 ? x0[q < 32 ? q : 0] : x1[q], q & 31);
    if (!(piv > 0.f)) return q + 1;  // uniform
    const float inv = rsqrt_t(piv), d = piv * inv;
    if (q < 32) {
      float& x = x0[q < 32 ? q : 0];
      x = l > q ? x * inv : (l == q ? d : x);
      S[q * kSplitLd + l] = x;
    }
    x1[q] = l + 32 > q ? x1[q] * inv : (l + 32 == q ? d : x1[q]);
    S[q * kSplitLd + l + 32] = x1[q];
    __syncwarp();
#pragma unroll
    for (int c4 = (q + 1) / 4; c4 < 16; ++c4) {
      float v[4];
      ld16(&S[q * kSplitLd + 4 * c4], v);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int k = 4 * c4 + e;
        if (k > q) {
          if (k < 32 && q < 32) x0[k < 32 ? k : 0] -= x0[q < 32 ? q : 0] * v[e];
          x1[k] -= x1[q] * v[e];
        }
      }
    }
  }
  return 0;
}

// X L^T = C for the 64 x 64 tile C in S, L lower in Lt, rinv[c] = 1 / L(c, c),
// by 16-column blocks: thread t owns row t % 64 of block t / 64 (so both
// warps of a block read one address of L at a time: a broadcast). Per block
// gi: its warps solve it in registers and write X to S; a barrier; the later
// blocks subtract its product. Session 33: 5.5 k cycles, against 14 k for 4
// lanes per row with shuffles, whose warps read 4 addresses of L per load
// (4 shared-memory wavefronts). Every thread of the block must call it.
__device__ inline void solve_blocked64(float* S, const float* Lt, const float* rinv) {
  const int t = threadIdx.x, r = t % kSplitTs, g = t / kSplitTs;
  float x[16];
#pragma unroll
  for (int q = 0; q < 16; ++q) x[q] = S[(16 * g + q) * kSplitLd + r];
#pragma unroll 1
  for (int gi = 0; gi < 4; ++gi) {
    if (g == gi) {
      const int c0 = 16 * g;
#pragma unroll
      for (int q = 0; q < 16; ++q) {
        x[q] *= rinv[c0 + q];
#pragma unroll
        for (int p = q + 1; p < 16; ++p) x[p] -= x[q] * Lt[(c0 + q) * kSplitLd + c0 + p];
        S[(c0 + q) * kSplitLd + r] = x[q];
      }
    }
    __syncthreads();
    if (g > gi) {
#pragma unroll
      for (int q = 0; q < 16; ++q) {
        const float xq = S[(16 * gi + q) * kSplitLd + r];
        float m[16];
#pragma unroll
        for (int p4 = 0; p4 < 4; ++p4) ld16(&Lt[(16 * gi + q) * kSplitLd + 16 * g + 4 * p4], &m[4 * p4]);
#pragma unroll
        for (int p = 0; p < 16; ++p) x[p] -= xq * m[p];
      }
    }
  }
}

// S22 -= S21 S21^T (the whole 64 x 64 square): thread t owns rows
// 4 (t % 16) .. + 3 and columns 4 (t / 16) .. + 3.
__device__ inline void syrk_square64(float* S22, const float* S21) {
  const int t = threadIdx.x, r0 = 4 * (t % 16), c0 = 4 * (t / 16);
  float acc[4][4] = {};
#pragma unroll 8
  for (int k = 0; k < kSplitTs; ++k) {
    float a[4], b[4];
    ld16(&S21[k * kSplitLd + r0], a);
    ld16(&S21[k * kSplitLd + c0], b);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
  }
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) S22[(c0 + j) * kSplitLd + r0 + i] -= acc[i][j];
}

template <bool Upper>
__global__ void __launch_bounds__(kSplitThreads, 1)
    potrf_diag_split_kernel(float* A, index_t lda, int m, int* info, index_t offset, int* flag,
                            int flag_base) {
  extern __shared__ __align__(16) unsigned char split_smem_raw[];
  float* const S11 = reinterpret_cast<float*>(split_smem_raw);
  float* const S21 = S11 + kSplitTile;
  float* const S22 = S21 + kSplitTile;
  float* const rinv = S22 + kSplitTile;
  // Launched as a programmatic dependent of the kernel before it (potrf.cu),
  // like the tile kernel: wait for it, then let the fused panel launch.
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
  const int tid = threadIdx.x;
  if (tid == 0) DLA_POTRF_DIAG_STAMP(0);
  if (tid == 0 && flag != nullptr) atomicExch(flag, flag_base);
  if (*info != 0) {  // an earlier minor failed (uniform)
    if (tid == 0) panel_flag_release(flag, flag_base);
    return;
  }
  const int m2 = m - kSplitTs;  // 1 .. 64
  // L(i, j) = upper ? A(j, i) : A(i, j).
  auto el = [=](int i, int j) -> float& {
    return Upper ? A[j + index_t(i) * lda] : A[i + index_t(j) * lda];
  };
  // Element e of a 64 x 64 tile: (i, j) with i fastest for lower and j
  // fastest for upper, so that global memory is read and written along rows
  // of A in both cases.
  auto ij = [](int e, int& i, int& j) {
    if (Upper) { j = e % kSplitTs; i = e / kSplitTs; } else { i = e % kSplitTs; j = e / kSplitTs; }
  };
  for (int e = tid; e < kSplitTs * kSplitTs; e += kSplitThreads) {
    int i, j;
    ij(e, i, j);
    S11[j * kSplitLd + i] = i >= j ? el(i, j) : 0.f;
    S21[j * kSplitLd + i] = i < m2 ? el(kSplitTs + i, j) : 0.f;
    S22[j * kSplitLd + i] = i < m2 && j < m2 ? (i >= j ? el(kSplitTs + i, kSplitTs + j) : 0.f)
                                             : (i == j ? 1.f : 0.f);
  }
  __syncthreads();

  __shared__ int fail;  // failing column + 1 (of the block), or 0
  if (tid < 32) {
    const int f = warp_factor64(S11);
    if (tid == 0) fail = f;
  }
  __syncthreads();
  int linfo = fail;
  if (linfo == 0) {
    if (tid < kSplitTs) rinv[tid] = 1.f / S11[tid * kSplitLd + tid];
    __syncthreads();
    solve_blocked64(S21, S11, rinv);
    __syncthreads();
  }
  // L11 (columns < the failing one, or all) and L21 to A.
  for (int e = tid; e < kSplitTs * kSplitTs; e += kSplitThreads) {
    int i, j;
    ij(e, i, j);
    if (linfo != 0 && j >= linfo - 1) continue;
    if (i >= j) el(i, j) = S11[j * kSplitLd + i];
    if (linfo == 0 && i < m2) el(kSplitTs + i, j) = S21[j * kSplitLd + i];
  }
  if (linfo == 0) {
    __syncthreads();
    // Sub-panels 0 and 1 (columns < 64) are final: release them, after the
    // barrier so that the release covers every thread's stores (the panel
    // kernel reads the flag with ld.acquire).
    if (tid == 0 && flag != nullptr) {
      asm volatile("red.release.gpu.global.add.s32 [%0], %1;" ::"l"(flag), "r"(2 * kSplitFlagUnit)
                   : "memory");
      DLA_POTRF_DIAG_STAMP(2);
    }
    syrk_square64(S22, S21);
    __syncthreads();
    if (tid < 32) {
      const int f = warp_factor64(S22);
      if (tid == 0) fail = f;
    }
    __syncthreads();
    const int f2 = fail;  // never in the padding (identity pivots)
    if (f2 != 0) linfo = kSplitTs + f2;
    for (int e = tid; e < kSplitTs * kSplitTs; e += kSplitThreads) {
      int i, j;
      ij(e, i, j);
      if (i < m2 && j <= i) el(kSplitTs + i, kSplitTs + j) = S22[j * kSplitLd + i];
    }
  }
  __syncthreads();  // every thread's stores are done
  if (tid == 0) {
    if (linfo != 0) *info = int(offset + linfo);
    __threadfence();
    panel_flag_release(flag, flag_base);
    DLA_POTRF_DIAG_STAMP(8);
  }
}

}  // namespace dla::cuda::detail
