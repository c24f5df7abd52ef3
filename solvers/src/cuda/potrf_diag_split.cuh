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
// Why (docs/cholesky-log.md, sessions 33-34): alone on an idle H200 the four
// parts took 32.7 k cycles (16.5 us; 19.4 us cold), where the tile kernel
// takes 26-31 us per 128-block, and the diagonal block is on the critical
// path of every step of the look-ahead. In place it does not win, so it is
// opt-in (DLA_POTRF_DIAG_SPLIT=1, potrf_switches.cuh). Session 34 stamped both kernels
// inside spotrf 4096 (experiments/timeline/diag_stamps.cuh): this kernel,
// then 160 KB of code, took 30 us in late steps and up to 47 us in early
// ones, its one-warp factorizations 9.5-16 us each where they took 6 us
// alone, also with the whole SM's shared memory (so not SM sharing). With
// the compact warp_factor64 below (85 KB) and its loads batched it takes
// ~26 us, as long as the tile kernel (11 KB, 17 warps), and it releases the
// panel's sub-panels in two steps instead of four, so spotrf 4096 takes 1.72
// ms against the tile kernel's 1.51. Our reading (not profiled): in place
// the code comes from L2 at every launch, and the block's loads and stores
// are L2 round trips; both cost the one-warp chains most.
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
// upper part is scratch) by one warp: lane l holds row l (columns < 32) and
// row l + 32 in registers; column q of L is written to S and read back by
// every lane (broadcast) for the rank-1 update. Returns the failing column
// + 1 (columns < it are L in S, the rest of S is as it was), or 0.
// Compact code (session 34, docs/cholesky-log.md): the kernel runs once per
// block column, on an SM whose instruction cache does not hold it, while the
// bulk update loads L2. Fully unrolled, this function made the kernel 160 KB
// and took 6 us warm alone but 9.5-16 us in place. Here the columns go in a
// loop over blocks of 8 (unrolled inside), and the register arrays shift by
// 8 after each block, so every index stays static: slot k holds column
// base + k (45 KB of code; the kernel 85 KB). Slots past the last column
// hold values that are never stored nor used as pivots; their loads are
// clamped to rows of the tile (a read past column q's rows would be a read
// of column q + 1, which the next step writes).
// Not inlined: the kernel calls it twice.
__device__ __noinline__ inline int warp_factor64(float* S) {
  const int l = threadIdx.x % 32;
  float x0[32], x1[64];  // row l, row l + 32: slot k = column base + k
#pragma unroll
  for (int c = 0; c < 32; ++c) x0[c] = S[c * kSplitLd + l];
#pragma unroll
  for (int c = 0; c < 64; ++c) x1[c] = S[c * kSplitLd + l + 32];
  // Columns 0..31: both rows of the lane take part.
#pragma unroll 1
  for (int base = 0; base < 32; base += 8) {
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int col = base + q;
      const float piv = __shfl_sync(0xffffffffu, x0[q], col);
      if (!(piv > 0.f)) return col + 1;  // uniform
      const float inv = rsqrt_t(piv), d = piv * inv;
      x0[q] = l > col ? x0[q] * inv : (l == col ? d : x0[q]);
      S[col * kSplitLd + l] = x0[q];
      x1[q] *= inv;  // row l + 32 > col
      S[col * kSplitLd + l + 32] = x1[q];
      __syncwarp();
      const float* Lq = &S[col * kSplitLd + base];  // Lq[k] = L(base + k, col)
#pragma unroll
      for (int c4 = (q + 1) / 4; c4 < 16; ++c4) {
        float v[4];
        ld16(&Lq[min(4 * c4, kSplitTs - 4 - base)], v);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int k = 4 * c4 + e;
          if (k > q) {
            if (k < 32) x0[k < 32 ? k : 0] -= x0[q] * v[e];
            x1[k] -= x1[q] * v[e];
          }
        }
      }
    }
#pragma unroll
    for (int k = 0; k < 24; ++k) x0[k] = x0[k + 8];
#pragma unroll
    for (int k = 0; k < 56; ++k) x1[k] = x1[k + 8];
  }
  // Columns 32..63: row l + 32 only, in slots 0..31 of x1.
#pragma unroll 1
  for (int base = 0; base < 32; base += 8) {
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int col = 32 + base + q;
      const float piv = __shfl_sync(0xffffffffu, x1[q], base + q);
      if (!(piv > 0.f)) return col + 1;  // uniform
      const float inv = rsqrt_t(piv), d = piv * inv;
      x1[q] = l + 32 > col ? x1[q] * inv : (l + 32 == col ? d : x1[q]);
      S[col * kSplitLd + l + 32] = x1[q];
      __syncwarp();
      const float* Lq = &S[col * kSplitLd + 32 + base];  // Lq[k] = L(32 + base + k, col)
#pragma unroll
      for (int c4 = (q + 1) / 4; c4 < 8; ++c4) {
        float v[4];
        ld16(&Lq[min(4 * c4, kSplitTs - 36 - base)], v);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int k = 4 * c4 + e;
          if (k > q) x1[k] -= x1[q] * v[e];
        }
      }
    }
#pragma unroll
    for (int k = 0; k < 24; ++k) x1[k] = x1[k + 8];
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
  const int tid = threadIdx.x;
  if (tid == 0) DLA_POTRF_DIAG_STAMP(9);  // probe hooks: potrf_kernels.cuh
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
  if (tid == 0) DLA_POTRF_DIAG_STAMP(0);
  if (tid == 0 && flag != nullptr) atomicExch(flag, flag_base);
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
  // Every load issued before the first store to shared memory: the block
  // comes from L2 (the update kernel before this one wrote it). With a load
  // and a store per element group in a loop, this phase took 4.6-4.9 us in
  // place; batched, 3.1 us (session 34).
  constexpr int kLoads = kSplitTs * kSplitTs / kSplitThreads;
  float v11[kLoads], v21[kLoads], v22[kLoads];
#pragma unroll
  for (int u = 0; u < kLoads; ++u) {
    int i, j;
    ij(tid + u * kSplitThreads, i, j);
    v11[u] = i >= j ? el(i, j) : 0.f;
    v21[u] = i < m2 ? el(kSplitTs + i, j) : 0.f;
    v22[u] = i < m2 && j < m2 ? (i >= j ? el(kSplitTs + i, kSplitTs + j) : 0.f)
                              : (i == j ? 1.f : 0.f);
  }
  // After the loads, so that the two round trips overlap (the block is only
  // read before this test).
  if (*info != 0) {  // an earlier minor failed (uniform)
    if (tid == 0) panel_flag_release(flag, flag_base);
    return;
  }
#pragma unroll
  for (int u = 0; u < kLoads; ++u) {
    int i, j;
    ij(tid + u * kSplitThreads, i, j);
    S11[j * kSplitLd + i] = v11[u];
    S21[j * kSplitLd + i] = v21[u];
    S22[j * kSplitLd + i] = v22[u];
  }
  __syncthreads();
  if (tid == 0) DLA_POTRF_DIAG_STAMP(1);

  __shared__ int fail;  // failing column + 1 (of the block), or 0
  if (tid < 32) {
    const int f = warp_factor64(S11);
    if (tid == 0) fail = f;
  }
  __syncthreads();
  if (tid == 0) DLA_POTRF_DIAG_STAMP(3);
  int linfo = fail;
  if (linfo == 0) {
    if (tid < kSplitTs) rinv[tid] = 1.f / S11[tid * kSplitLd + tid];
    __syncthreads();
    solve_blocked64(S21, S11, rinv);
    __syncthreads();
    if (tid == 0) DLA_POTRF_DIAG_STAMP(4);
  }
  // L11 (columns < the failing one, or all) and L21 to A.
#pragma unroll 4
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
    if (tid == 0) DLA_POTRF_DIAG_STAMP(5);
    if (tid < 32) {
      const int f = warp_factor64(S22);
      if (tid == 0) fail = f;
    }
    __syncthreads();
    if (tid == 0) DLA_POTRF_DIAG_STAMP(6);
    const int f2 = fail;  // never in the padding (identity pivots)
    if (f2 != 0) linfo = kSplitTs + f2;
#pragma unroll 4
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
