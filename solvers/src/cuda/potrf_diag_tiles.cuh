#pragma once
// potrf_diag_tiles_kernel: the diagonal block of order m <= NC (NC = 64 or
// 128) of the blocked Cholesky, with the block's lower triangle spread over
// the threads in 4 x 4 register tiles, factored 4 columns at a time, as a
// drop-in for potrf_diag_rows_kernel: same info, offset, progress-flag and
// uplo contract (potrf_kernels.cuh).
//
// Why: the row kernel (a thread per row, one barrier per column) costs
// ~0.24 us per column on the H200, and so did a first 2-D version of this
// kernel with one barrier per column (0.2 us; docs/cholesky-log.md, session 16).
// Here a barrier pair covers 4 columns. Where its ~0.9 us per 4 columns goes
// (clock64 stamps, session 17): the diagonal tile's factor by one thread
// ~620 cycles, the rows below ~500, the rank-4 update 280-1000, the two
// barriers ~90: the single-thread chains, not the barriers, are the cost.
//
// Layout: tile (ti, tj), tj <= ti, holds L(4 ti + r, 4 tj + c), r, c < 4, in
// a[r][c]. Tiles are numbered column by column (tile column tj: ti = tj ..),
// thread t owns tile t. Rows and columns >= m are padding: an identity block
// (never stored), so every step is unconditional. Tile column tc (columns
// 4 tc .. 4 tc + 3), with all earlier columns already applied to every tile:
//   A. the owner of the diagonal tile (tc, tc) factors it in registers
//      (4 x 4 Cholesky, rsqrt per pivot), stores it, and publishes its rows
//      of L and the reciprocal diagonal to shared memory;       barrier 1
//   B. the owners of the tiles below it solve their 4 rows against it
//      (forward substitution), store them and publish them;      barrier 2
//   C. every tile subtracts L(i, tc) L(j, tc)^T (16 dot products of length 4)
//      from its elements, the published rows of its rows and of its columns.
// Elements of finished columns are updated too (they are stored already and
// never read again), so phase C has no tests. A tile's last tile column is
// tj, and tiles are numbered by tile column, so the warps finish in index
// order: a warp leaves after barrier 1 of the first tile column past its
// tiles, and each barrier (named barriers 1 and 2) counts the warps still
// running. The last warp runs to the end; its lane 0 ("lead") owns the
// progress flag and info. The published columns alternate between two buffers
// by tile column, so phase A never overwrites columns that a slower warp still
// reads in phase C of the previous tile column.
//
// A failing pivot (not > 0, NaN included) at column k stops the block after
// barrier 1: the columns < k of the diagonal tile are L, and every element
// of columns >= 4 tc is stored as updated so far (the blocked LAPACK
// convention: the trailing part is partly updated).
#include <cuda_runtime.h>

#include "potrf_kernels.cuh"
#include "smem_vec.cuh"

namespace dla::cuda::detail {

template <int NC>
struct DiagTiles {
  static constexpr int kTile = 4;
  static constexpr int kT = NC / kTile;             // tile rows (and columns)
  static constexpr int kTiles = kT * (kT + 1) / 2;  // tiles on or below the diagonal
  static constexpr int kWarps = (kTiles + 31) / 32;
  static constexpr int kThreads = kWarps * 32;
  // Tiles in the tile columns before tj (the number of the diagonal tile tj).
  __host__ __device__ static constexpr int before(int tj) { return tj * kT - tj * (tj - 1) / 2; }
  // Tile column of tile number t.
  __device__ static int column_of(int t) {
    int tj = 0;
    while (t >= kT - tj) {
      t -= kT - tj;
      ++tj;
    }
    return tj;
  }
  // Threads of the warps with a tile in a tile column >= tj.
  __device__ static int threads_from(int tj) { return 32 * (kWarps - before(tj) / 32); }
};

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// One block per SM (__launch_bounds__(kThreads, 1)): up to 120 registers
// instead of 60. Session 17 measured it at 28.5 against 30.6 us per
// 128-block on an idle H200, and found that the diagonal block alone on its
// SM does not slow the factorization (the 2-blocks bound was there to share
// an SM with a GEMM block of the look-ahead's bulk update).
template <class T, int NC, bool Upper>
__global__ void __launch_bounds__(DiagTiles<NC>::kThreads, 1)
    potrf_diag_tiles_kernel(T* A, index_t lda, int m, int* info, index_t offset, int* flag,
                            int flag_base) {
  using G = DiagTiles<NC>;
  constexpr int kS = G::kTile;
  __shared__ __align__(16) T Lcol[2][kS][NC];  // Lcol[tc & 1][q][i] = L(i, 4 tc + q)
  __shared__ __align__(16) T rinv[2][kS];      // 1 / L(4 tc + q, 4 tc + q)
  __shared__ int fail;                         // failed column + 1, or 0
  // Launched as a programmatic dependent of the kernel before it (potrf.cu):
  // wait until that kernel has finished (a no-op after a plain launch), then
  // let the fused panel kernel launch.
  const int tid = threadIdx.x;
  const int lead = G::kThreads - 32;  // lane 0 of the last warp: runs every phase
  if (tid == lead) DLA_POTRF_DIAG_STAMP(9);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
  if (tid == lead) DLA_POTRF_DIAG_STAMP(0);
  if (tid == lead) {
    if (flag != nullptr) atomicExch(flag, flag_base);
    fail = 0;
  }
  const bool has = tid < G::kTiles;
  const int t = has ? tid : G::kTiles - 1;
  const int tj = G::column_of(t);
  const int ti = tj + (t - G::before(tj));
  const int r0 = kS * ti, c0 = kS * tj;
  const bool diag = has && ti == tj;
  // Last tile column of this warp: the warp leaves once the steps pass it.
  const int warp_tj = G::column_of(min(tid | 31, G::kTiles - 1));
  // L(i, j) = upper ? A(j, i) : A(i, j): element (r0 + r, j) of L is el(r, j).
  T* const base = A + (Upper ? r0 * lda : index_t(r0));
  auto el = [=](int r, int j) -> T& {
    return Upper ? base[r * lda + j] : base[r + j * lda];
  };
  auto stored = [=](int r, int c) { return has && r0 + r < m && c0 + c <= r0 + r; };
  T a[kS][kS];
#pragma unroll
  for (int r = 0; r < kS; ++r)
#pragma unroll
    for (int c = 0; c < kS; ++c)
      a[r][c] = stored(r, c) ? el(r, c0 + c) : (r0 + r == c0 + c ? T(1) : T(0));
  // After the block's loads, so that the two round trips to L2 overlap
  // (session 34): the block is only read before this test.
  if (*info != 0) {  // an earlier minor failed (uniform)
    if (tid == lead) panel_flag_release(flag, flag_base);
    return;
  }
  __syncthreads();  // fail = 0 is visible

  int linfo = 0;
  const int unit = diag_threads<T>() / 32;  // the panel kernel's count per sub-panel
#pragma unroll 1
  for (int tc = 0; kS * tc < m; ++tc) {
    const int b = tc & 1;
    const int k0 = kS * tc;
    // A: the diagonal tile, L = chol(a) in place (a[r][c], c <= r).
    if (diag && tj == tc) {
      int f = 0;
#pragma unroll
      for (int q = 0; q < kS; ++q) {
        const T d = a[q][q];
        if (f == 0 && !(d > T(0))) f = k0 + q + 1;
        if (f == 0) {
          const T inv = rsqrt_t(d);
          rinv[b][q] = inv;
          a[q][q] = d * inv;
#pragma unroll
          for (int r = q + 1; r < kS; ++r) a[r][q] *= inv;
#pragma unroll
          for (int r = q + 1; r < kS; ++r)
#pragma unroll
            for (int c = q + 1; c <= r; ++c) a[r][c] -= a[r][q] * a[c][q];
        }
      }
      if (f != 0) {
        fail = f;
      } else {
#pragma unroll
        for (int c = 0; c < kS; ++c) {
          T v[kS];
#pragma unroll
          for (int r = 0; r < kS; ++r) v[r] = c <= r ? a[r][c] : T(0);
          store4_aligned(&Lcol[b][c][r0], v);
#pragma unroll
          for (int r = c; r < kS; ++r)
            if (stored(r, c)) el(r, c0 + c) = a[r][c];
        }
      }
    }
    named_barrier_sync(1, G::threads_from(tc > 0 ? tc - 1 : 0));
    if (warp_tj < tc) break;  // nothing left for this warp
    if (fail != 0) {          // uniform: leave the updated elements of columns >= k0
      linfo = fail;
      if (has)
#pragma unroll
        for (int r = 0; r < kS; ++r)
#pragma unroll
          for (int c = 0; c < kS; ++c)
            if (c0 + c >= k0 && stored(r, c)) el(r, c0 + c) = a[r][c];
      break;
    }
    // B: the rows below the diagonal tile, x L11^T = a by forward substitution.
    if (has && tj == tc && ti > tc) {
      T l[kS][kS], ri[kS];  // l[p][q] = L(k0 + q, k0 + p)
#pragma unroll
      for (int p = 0; p < kS; ++p) load4_aligned(&Lcol[b][p][k0], l[p]);
      load4_aligned(rinv[b], ri);
#pragma unroll
      for (int r = 0; r < kS; ++r) {
#pragma unroll
        for (int q = 0; q < kS; ++q) {
#pragma unroll
          for (int p = 0; p < q; ++p) a[r][q] -= a[r][p] * l[p][q];
          a[r][q] *= ri[q];
        }
#pragma unroll
        for (int c = 0; c < kS; ++c)
          if (stored(r, c)) el(r, c0 + c) = a[r][c];
      }
#pragma unroll
      for (int c = 0; c < kS; ++c) {
        const T v[kS] = {a[0][c], a[1][c], a[2][c], a[3][c]};
        store4_aligned(&Lcol[b][c][r0], v);
      }
    }
    named_barrier_sync(2, G::threads_from(tc));
    if (tid == lead && flag != nullptr && (k0 + kS) % 32 == 0 && k0 + kS < m) {
      // After the barrier, so the release covers every thread's stores of
      // columns < k0 + 4 (the panel kernel reads the flag with ld.acquire).
      // A release add instead of __threadfence + atomicAdd: the SC fence
      // also invalidates L1 and waits for all the thread's memory traffic.
      asm volatile("red.release.gpu.global.add.s32 [%0], %1;" ::"l"(flag), "r"(unit) : "memory");
      DLA_POTRF_DIAG_STAMP((k0 + kS) / 32);
    }
    // C: a -= L(rows, tc) L(cols, tc)^T, one rank-1 update per column q.
#pragma unroll
    for (int q = 0; q < kS; ++q) {
      T u[kS], v[kS];
      load4_aligned(&Lcol[b][q][r0], u);
      load4_aligned(&Lcol[b][q][c0], v);
#pragma unroll
      for (int r = 0; r < kS; ++r)
#pragma unroll
        for (int c = 0; c < kS; ++c) a[r][c] -= u[r] * v[c];
    }
  }
  __syncthreads();  // every warp (the retired ones wait here): all stores done
  if (tid == lead) {
    if (linfo != 0) *info = int(offset + linfo);
    __threadfence();
    panel_flag_release(flag, flag_base);
    DLA_POTRF_DIAG_STAMP(8);
  }
}

}  // namespace dla::cuda::detail
