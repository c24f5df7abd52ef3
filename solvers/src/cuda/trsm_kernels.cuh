#pragma once
// Leaf kernel of the recursive triangular solve: M x = alpha b for many
// vectors x, with M a small (k <= NB) triangle held in shared memory.
//
// The vectors are either columns of B (side Left: elements contiguous, vectors
// ldb apart) or rows of B (side Right: elements ldb apart, vectors contiguous);
// the caller passes the strides. M(i, j) = trans ? A(j, i) : A(i, j); only the
// stored triangle of A is read, and with `unit` its diagonal is not read.
//
// Parallel over both the vectors and the elements: a block of 256 threads owns
// a tile of VB = 256 / G vectors (grid-stride over the tiles); the G lanes of
// one vector (G consecutive lanes of one warp) each hold NB / G of its
// elements in registers (element e = g + G q). Step i of the substitution:
// the owner lane of element i scales it (by 1 / M(i, i), precomputed), a warp
// shuffle broadcasts it to the vector's other lanes, and every lane updates
// its elements below (above) i. No __syncthreads inside the sweep: the
// critical path is NB x (shuffle + multiply + FMA), about 2-3 k cycles.
// The sweep is a rolled loop: fully unrolled it was NB x ~40 instructions
// run once each, every one an instruction-cache miss (ncu: ~86 us for a
// 128-triangle on 16 vectors instead of ~10).
// The tile of B goes through shared memory so that the global loads and stores
// are coalesced for both strides.
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/types.hpp"
#include "sfmin.cuh"
#include "smem_vec.cuh"

namespace dla::cuda::detail {

constexpr int kTrsmLeafThreads = 256;

template <class T, int NB, int G, bool Sfmin>
constexpr std::size_t trsm_leaf_smem_bytes() {
  constexpr int VB = kTrsmLeafThreads / G;
  return sizeof(T) * std::size_t(NB * (NB + 1) + NB * (VB + 1) + (Sfmin ? 2 : 1) * NB);
}

// Fills the k x k triangle M (M(i, j) = trans ? A(j, i) : A(i, j); k <= NB)
// into shared memory for the NT threads of a block: S[i * si + j * sj] = M(i, j)
// on the strict lower (upper) part, 0 elsewhere and beyond k; rdiag[i] =
// 1 / M(i, i) (1 with `unit`, 0 beyond k). Where |M(i, i)| is below the
// smallest normal number, whose reciprocal may overflow, BLAS divides by it:
// there rdiag[i] = 1 / (M(i, i) 2^64) and dsc[i] = 2^64, elsewhere dsc[i] =
// 1 (sfmin.cuh), and the kernels take x_i = (x dsc[i]) rdiag[i]. Returns, to
// every thread (a barrier: call it from all of them), whether there is such
// an entry; without one the kernels take x rdiag[i] as before (the test
// TrsmDevice.SubnormalDiagonal). With Sfmin = false (a unit diagonal, whose
// entries are never read: getrf's solves with L11) none of this is compiled,
// dsc is unused, there is no barrier, and the result is false: the code of the
// kernels before session 45, whose float NB = 128 leaf has 80 registers
// against 100 with the pass (sgetrf 2-2.8% slower at 1024 and 4096 on an H100
// with it; docs/lu.md, session 47). Only the stored triangle of A is
// read. The fast index follows A's contiguous dimension (coalesced), in
// batches of 16 unconditional loads (elements outside the triangle read a
// valid address and are discarded) before their shared stores: one L2 round
// trip per batch. Loads under a condition, each followed by its store, were
// one round trip each (trsm_rows_kernel on the H200: the fill took ~36 of 81 us).
template <class T, int NB, int NT, bool Sfmin>
__device__ __forceinline__ bool fill_triangle(const T* __restrict__ A, index_t lda, int k,
                                              bool trans, bool lower, bool unit, T* S, int si,
                                              int sj, T* rdiag, T* dsc) {
  constexpr int kFill = NB * NB / NT, kBatch = kFill < 16 ? kFill : 16;
  static_assert((NB * NB) % NT == 0 && kFill % kBatch == 0, "triangle fill tiling");
  const int tid = threadIdx.x;
  for (int t0 = 0; t0 < kFill; t0 += kBatch) {
    T v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int idx = tid + (t0 + u) * NT;
      const int f = idx % NB, s = idx / NB;
      const int i = trans ? s : f, j = trans ? f : s;  // M(i, j) = A(f + s lda)
      const bool need = i < k && j < k && ((lower ? i > j : i < j) || (i == j && !unit));
      v[u] = __ldg(need ? A + f + index_t(s) * lda : A);
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int idx = tid + (t0 + u) * NT;
      const int f = idx % NB, s = idx / NB;
      const int i = trans ? s : f, j = trans ? f : s;
      const bool in_tri = i < k && j < k && (lower ? i > j : i < j);
      S[i * si + j * sj] = in_tri ? v[u] : T(0);
      if (i == j) {
        rdiag[i] = i < k ? (unit ? T(1) : T(1) / v[u]) : T(0);
        if constexpr (Sfmin) dsc[i] = i < k && !unit ? v[u] : T(1);  // M(i, i) for the pass below
      }
    }
  }
  if constexpr (!Sfmin) return false;
  // The entries below sfmin, after a barrier: kept out of the loop above,
  // where they cost the NB = 128 float leaf up to 48 more registers.
  __syncthreads();
  bool tiny = false;
  for (int i = tid; i < NB; i += NT) {
    const T d = dsc[i];
    const bool small = !(fabs(d) >= smallest_normal<T>());
    if (small) rdiag[i] = T(1) / (d * tiny_scale<T>(true));
    dsc[i] = tiny_scale<T>(small);
    tiny = tiny || small;
  }
  return __syncthreads_or(tiny) != 0;
}

template <class T, int NB, int G, bool Sfmin>
__global__ void __launch_bounds__(kTrsmLeafThreads)
    trsm_leaf_kernel(const T* __restrict__ A, index_t lda, int k, bool trans, bool lower,
                     bool unit, T* B, index_t estride, index_t vstride, index_t nvec, T alpha) {
  constexpr int NT = kTrsmLeafThreads, VB = NT / G, R = NB / G;
  static_assert(32 % G == 0 && NB % G == 0 && (NB * NB) % NT == 0 && (NB * VB) % NT == 0,
                "trsm leaf tiling");
  // Dynamic shared memory, trsm_leaf_smem_bytes<T, NB, G, Sfmin>() bytes:
  //   Ms[NB][NB + 1]  strictly triangular part of M, zero elsewhere
  //   Xs[NB][VB + 1]  Xs[e][v]: element e of vector v of the tile
  //   rdiag[NB]       1 / M(i, i) (1 with `unit`, 0 beyond k)
  //   dsc[NB]         1, or 2^64 where M(i, i) is below the smallest normal
  //                   number (Sfmin only)
  extern __shared__ __align__(16) unsigned char trsm_smem[];
  T(*Ms)[NB + 1] = reinterpret_cast<T(*)[NB + 1]>(trsm_smem);
  T(*Xs)[VB + 1] = reinterpret_cast<T(*)[VB + 1]>(trsm_smem + sizeof(T) * NB * (NB + 1));
  T* rdiag = reinterpret_cast<T*>(trsm_smem + sizeof(T) * NB * (NB + 1 + VB + 1));
  T* dsc = rdiag + NB;
  const int tid = threadIdx.x;
  // scaled: a diagonal entry below the smallest normal number (fill_triangle).
  const bool scaled = fill_triangle<T, NB, NT, Sfmin>(A, lda, k, trans, lower, unit, &Ms[0][0],
                                                      NB + 1, 1, rdiag, dsc);
  const int g = tid % G, vl = tid / G;
  const bool econtig = estride == 1;
  const index_t ntiles = (nvec + VB - 1) / VB;
  for (index_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const index_t v0 = tile * VB;
#pragma unroll
    for (int t = 0; t < NB * VB / NT; ++t) {
      const int idx = tid + t * NT;
      const int e = econtig ? idx % NB : idx / VB, v = econtig ? idx / NB : idx % VB;
      T x = T(0);
      if (e < k && v0 + v < nvec) x = alpha * B[(v0 + v) * vstride + index_t(e) * estride];
      Xs[e][v] = x;
    }
    __syncthreads();  // also orders the triangle fill before the first sweep
    T x[R];
#pragma unroll
    for (int q = 0; q < R; ++q) x[q] = Xs[g + G * q][vl];
    // Rolled step loops (see the header comment): x[i / G] is read and
    // written through unrolled selects over q.
    auto step = [&](int i) {
      const int qi = i / G, gi = i % G;
      T own = T(0);
#pragma unroll
      for (int q = 0; q < R; ++q)
        if (q == qi) own = x[q];
      const T xs = __shfl_sync(0xffffffffu, own, gi, G);
      const T xi = scaled ? (xs * dsc[i]) * rdiag[i] : xs * rdiag[i];
      if (g == gi) {
#pragma unroll
        for (int q = 0; q < R; ++q)
          if (q == qi) x[q] = xi;
      }
#pragma unroll
      for (int q = 0; q < R; ++q) {
        const int r = g + G * q;
        if (lower ? r > i : r < i) x[q] -= Ms[r][i] * xi;
      }
    };
    if (lower) {
#pragma unroll 1
      for (int i = 0; i < k; ++i) step(i);
    } else {
#pragma unroll 1
      for (int i = k - 1; i >= 0; --i) step(i);
    }
#pragma unroll
    for (int q = 0; q < R; ++q) Xs[g + G * q][vl] = x[q];  // own slots: no hazard
    __syncthreads();
#pragma unroll
    for (int t = 0; t < NB * VB / NT; ++t) {
      const int idx = tid + t * NT;
      const int e = econtig ? idx % NB : idx / VB, v = econtig ? idx / NB : idx % VB;
      if (e < k && v0 + v < nvec) B[(v0 + v) * vstride + index_t(e) * estride] = Xs[e][v];
    }
    __syncthreads();  // Xs is refilled by the next tile
  }
}

// Thread-per-vector leaf for many vectors that are contiguous across threads
// (side Right: element e of vector v at B[v + e * estride]). M x = alpha b as
// above, k <= NB. Each thread owns one vector and walks it in chunks of
// kRowsChunk = 32 elements, left-looking (forward for lower M, backward for
// upper): the chunk is loaded into registers, updated with the vector's
// already solved elements (kept in shared memory, Xs[e][thread]: reading them
// back from B cost an L2 round trip per 4 elements, 92 us for a 128-triangle
// on 3840 rows on the H200), solved in registers, stored. M sits in shared memory by
// columns (Mc[i][j] = M(j, i), strictly triangular part, zero elsewhere and
// beyond k), so the 32 updates of a chunk by one solved element are 8
// broadcast 16-byte shared loads and 32 FMAs: every thread reads the same
// address. Per vector ~k^2/2 FMAs and no shuffles; the 16-lane leaf above
// executed ~180 k thread instructions per vector for ~8 k FMAs of work (ncu,
// 128-triangle on 3840 rows: 21.4 M warp instructions, 58 us).
constexpr int kTrsmRowsThreads = 128;
constexpr int kRowsChunk = 32;

template <class T, int NB>
constexpr int trsm_rows_ld() { return NB + 16 / int(sizeof(T)); }  // keeps 16-byte rows

template <class T, int NB, bool Sfmin>
constexpr std::size_t trsm_rows_smem_bytes() {
  return sizeof(T) *
         std::size_t(NB * trsm_rows_ld<T, NB>() + (Sfmin ? 2 : 1) * NB + NB * kTrsmRowsThreads);
}

template <class T, int NB, bool Sfmin>
__global__ void __launch_bounds__(kTrsmRowsThreads)
    trsm_rows_kernel(const T* __restrict__ A, index_t lda, int k, bool trans, bool lower,
                     bool unit, T* B, index_t estride, index_t nvec, T alpha) {
  constexpr int NT = kTrsmRowsThreads, CH = kRowsChunk, LD = trsm_rows_ld<T, NB>();
  static_assert(NB % CH == 0 && (NB * NB) % NT == 0, "trsm rows tiling");
  extern __shared__ __align__(16) unsigned char trsm_rows_smem[];
  T* Mc = reinterpret_cast<T*>(trsm_rows_smem);  // Mc[i * LD + j] = M(j, i)
  T* rdiag = Mc + NB * LD;                       // 1 / M(i, i); 0 beyond k
  T* dsc = rdiag + NB;                           // 1, or 2^64 (fill_triangle; Sfmin only)
  T* Xs = dsc + (Sfmin ? NB : 0);                // Xs[e * NT + tid]: solved elements
  const int tid = threadIdx.x;
  // scaled: a diagonal entry below the smallest normal number (fill_triangle).
  const bool scaled =
      fill_triangle<T, NB, NT, Sfmin>(A, lda, k, trans, lower, unit, Mc, 1, LD, rdiag, dsc);
  if constexpr (!Sfmin) __syncthreads();
  const int nc = (k + CH - 1) / CH;
  // No barrier below: each thread runs its own vectors.
  for (index_t v = index_t(blockIdx.x) * NT + tid; v < nvec; v += index_t(gridDim.x) * NT) {
    T* b = B + v;
    for (int cc = 0; cc < nc; ++cc) {
      const int c = lower ? cc : nc - 1 - cc;
      const int e0 = c * CH;
      T x[CH];
#pragma unroll
      for (int jj = 0; jj < CH; ++jj)
        x[jj] = e0 + jj < k ? alpha * b[index_t(e0 + jj) * estride] : T(0);
      // Solved elements: lower [0, e0), upper [e0 + CH, k).
      const int i_beg = lower ? 0 : e0 + CH, i_end = lower ? e0 : k;
#pragma unroll 4
      for (int i = i_beg; i < i_end; ++i) {
        const T xi = Xs[i * NT + tid];
        const T* col = Mc + i * LD + e0;
#pragma unroll
        for (int q = 0; q < CH / 4; ++q) {
          T mv[4];
          load4_aligned(col + 4 * q, mv);
#pragma unroll
          for (int r = 0; r < 4; ++r) x[4 * q + r] -= mv[r] * xi;
        }
      }
      // Solve within the chunk (the diagonal block of M).
#pragma unroll
      for (int s2 = 0; s2 < CH; ++s2) {
        const int ii = lower ? s2 : CH - 1 - s2;
        x[ii] = scaled ? (x[ii] * dsc[e0 + ii]) * rdiag[e0 + ii] : x[ii] * rdiag[e0 + ii];
        const T* col = Mc + (e0 + ii) * LD + e0;
#pragma unroll
        for (int q = 0; q < CH / 4; ++q) {
          if (lower ? 4 * q + 3 <= ii : 4 * q >= ii) continue;  // no row of this group needs it
          T mv[4];
          load4_aligned(col + 4 * q, mv);
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            const int jj = 4 * q + r;
            if (lower ? jj > ii : jj < ii) x[jj] -= mv[r] * x[ii];
          }
        }
      }
#pragma unroll
      for (int jj = 0; jj < CH; ++jj) {
        Xs[(e0 + jj) * NT + tid] = x[jj];  // own column of Xs: no barrier needed
        if (e0 + jj < k) b[index_t(e0 + jj) * estride] = x[jj];
      }
    }
  }
}

template <class T>
__global__ void scale_matrix_kernel(T* B, index_t ldb, index_t m, index_t n, T alpha) {
  const index_t total = m * n;
  for (index_t idx = index_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += index_t(gridDim.x) * blockDim.x) {
    const index_t i = idx % m, j = idx / m;
    T* p = B + i + j * ldb;
    *p = alpha == T(0) ? T(0) : alpha * *p;
  }
}

}  // namespace dla::cuda::detail
