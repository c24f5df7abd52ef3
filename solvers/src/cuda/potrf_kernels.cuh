#pragma once
// Kernels of the blocked Cholesky factorization:
//  - potf2_kernel: factors one small diagonal block (order k <= NB) in shared
//    memory with one thread block, reporting the first non-positive pivot to
//    the device `info` (global column offset + 1) and doing nothing when an
//    earlier block already failed;
//  - syrk_diag_kernel: the symmetric rank-k update of the diagonal w x w blocks
//    of a trailing matrix (only their stored triangle), all blocks in one
//    launch; the off-diagonal blocks go through GEMM.
// Both handle uplo through a "transposed access" flag: the lower case reads
// A(i, j), the upper case reads A(j, i) and works on the transpose.
#include <cuda_runtime.h>

#include "dla/core/types.hpp"

namespace dla::cuda::detail {

template <class T>
__device__ inline T sqrt_t(T x) { return sqrt(x); }

// Right-looking unblocked Cholesky of the k x k (k <= NB) lower triangle
// L(i, j) = upper ? A(j, i) : A(i, j). 256 threads; the matrix lives in
// registers: thread (tr, tc) = (tid % NB, tid / NB) holds L(tr, tc + C q),
// q < NB / C, C = 256 / NB. Step c: the owners of column c publish it to
// shared memory (double-buffered, so one __syncthreads per step), every thread
// reads the pivot d = L(c, c) (all threads take the same failure branch),
// the owners scale their column by 1 / sqrt(d) and every thread applies the
// rank-1 update L(i, j) -= L(i, c) L(j, c) = A(i, c) A(j, c) / d to its
// elements with j > c, i >= j. The global loads and stores go through a
// shared tile so both uplo cases are coalesced.
template <class T, int NB>
__global__ void __launch_bounds__(256) potf2_kernel(T* A, index_t lda, int k, bool upper,
                                                    int* info, index_t offset) {
  constexpr int NT = 256, C = NT / NB, Q = NB / C;
  static_assert(NT % NB == 0 && NB % C == 0 && (NB * NB) % NT == 0, "potf2 tiling");
  __shared__ T S[NB][NB + 1];
  __shared__ T colbuf[2][NB];
  if (*info != 0) return;  // an earlier minor failed: the factorization stopped there
  const int tid = threadIdx.x;
  // Load the stored triangle (fast index along A's contiguous dimension).
#pragma unroll
  for (int t = 0; t < NB * NB / NT; ++t) {  // all loads in flight at once
    const int idx = tid + t * NT;
    const int f = idx % NB, s = idx / NB;
    const int i = upper ? s : f, j = upper ? f : s;  // L(i, j) = A(f + s lda)
    if (i < k && j < k && i >= j) S[i][j] = A[f + index_t(s) * lda];
  }
  __syncthreads();
  const int tr = tid % NB, tc = tid / NB;
  T a[Q];
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    const int j = tc + C * q;
    a[q] = (tr < k && j < k && tr >= j) ? S[tr][j] : T(0);
  }
  // The step loop stays rolled: unrolled, its ~NB x 60 instructions run once
  // each, straight from L2 (instruction-cache misses made this kernel ~7x
  // slower). Register elements are picked and written by unrolled selects
  // over q, so nothing is indexed at run time.
#pragma unroll 1
  for (int c = 0; c < k; ++c) {
    T* buf = colbuf[c & 1];
    const int qc = c / C;
    const bool owner = tc == c % C;
    T mine = T(0);
#pragma unroll
    for (int q = 0; q < Q; ++q)
      if (q == qc) mine = a[q];
    if (owner && tr >= c) buf[tr] = mine;
    __syncthreads();
    const T d = buf[c];
    if (!(d > T(0))) {  // also catches NaN; uniform over the block
      if (tid == 0) *info = int(offset + c + 1);
      break;
    }
    const T rd = T(1) / d;
    const T ai = tr >= c ? buf[tr] : T(0);  // rows above c: not published this step
    if (owner && tr >= c) {
      const T sd = sqrt_t(d);
      const T v = tr > c ? ai / sd : sd;
#pragma unroll
      for (int q = 0; q < Q; ++q)
        if (q == qc) a[q] = v;
    }
    const T li = ai * rd;  // A(i, c) / d
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      const int j = tc + C * q;
      if (j > c && tr >= j) a[q] -= li * buf[j];
    }
  }
  __syncthreads();  // the loads of S above are complete everywhere
#pragma unroll
  for (int q = 0; q < Q; ++q) S[tr][tc + C * q] = a[q];
  __syncthreads();
#pragma unroll
  for (int t = 0; t < NB * NB / NT; ++t) {
    const int idx = tid + t * NT;
    const int f = idx % NB, s = idx / NB;
    const int i = upper ? s : f, j = upper ? f : s;
    if (i < k && j < k && i >= j) A[f + index_t(s) * lda] = S[i][j];
  }
}

// C -= X X^T on the diagonal blocks [b w, min(r, (b+1) w))^2 of the r x r
// matrix C, only the lower triangle of each block (upper: C -= X^T X, upper
// triangle). X(i, p) = upper ? P[p + i ldp] : P[i + p ldp], p < kk.
// Grid: x = 32 x 32 sub-tile pair (ti, tj) of a block (pairs above the
// diagonal exit at once), y = block index. 256 threads, 2 x 2 results each;
// the next 32-wide slice of X is loaded into registers while the current one
// is multiplied out of shared memory (one load latency per slice, hidden).
constexpr int kSyrkTile = 32;

template <class T>
__global__ void __launch_bounds__(256) syrk_diag_kernel(T* C, index_t ldc, const T* P,
                                                        index_t ldp, index_t r, index_t kk,
                                                        index_t w, bool upper) {
  constexpr int TS = kSyrkTile, KT = 32, NT = 256, L = KT * TS / NT;
  __shared__ T As[KT][TS + 1];
  __shared__ T Bs[KT][TS + 1];
  // Tiles per block side: the host launches (this)^2 blocks in x (w > r when
  // the whole trailing matrix is one partial block).
  const index_t tiles = ((w < r ? w : r) + TS - 1) / TS;
  const index_t ti = blockIdx.x % tiles, tj = blockIdx.x / tiles;
  if (ti < tj) return;  // strictly above the diagonal of the block
  const index_t b0 = index_t(blockIdx.y) * w;
  const index_t bend = b0 + w < r ? b0 + w : r;
  const index_t row0 = b0 + ti * TS, col0 = b0 + tj * TS;
  if (row0 >= bend || col0 >= bend) return;
  const int tid = threadIdx.x, tr = tid % 16, tc = tid / 16;
  // Element t of a slice: (ii, pp), the fast index along P's contiguous one.
  auto slot = [&](int t, int& ii, int& pp) {
    const int idx = tid + t * NT;
    if (upper) { pp = idx % KT; ii = idx / KT; } else { ii = idx % TS; pp = idx / TS; }
  };
  T ra[L], rb[L];
  auto fetch = [&](index_t p0) {
#pragma unroll
    for (int t = 0; t < L; ++t) {
      int ii, pp;
      slot(t, ii, pp);
      const index_t p = p0 + pp, ia = row0 + ii, ib = col0 + ii;
      ra[t] = T(0);
      rb[t] = T(0);
      if (p < kk) {
        if (ia < bend) ra[t] = upper ? P[p + ia * ldp] : P[ia + p * ldp];
        if (ib < bend) rb[t] = upper ? P[p + ib * ldp] : P[ib + p * ldp];
      }
    }
  };
  T acc[2][2] = {};
  fetch(0);
  for (index_t p0 = 0; p0 < kk; p0 += KT) {
#pragma unroll
    for (int t = 0; t < L; ++t) {
      int ii, pp;
      slot(t, ii, pp);
      As[pp][ii] = ra[t];
      Bs[pp][ii] = rb[t];
    }
    __syncthreads();
    if (p0 + KT < kk) fetch(p0 + KT);  // in flight during the products below
#pragma unroll
    for (int pp = 0; pp < KT; ++pp) {
      const T a0 = As[pp][tr], a1 = As[pp][tr + 16];
      const T c0 = Bs[pp][tc], c1 = Bs[pp][tc + 16];
      acc[0][0] += a0 * c0;
      acc[0][1] += a0 * c1;
      acc[1][0] += a1 * c0;
      acc[1][1] += a1 * c1;
    }
    __syncthreads();
  }
#pragma unroll
  for (int x = 0; x < 2; ++x)
#pragma unroll
    for (int y = 0; y < 2; ++y) {
      const index_t i = row0 + tr + 16 * x, j = col0 + tc + 16 * y;
      if (i < bend && j < bend && i >= j) {
        T* c = upper ? C + j + i * ldc : C + i + j * ldc;
        *c -= acc[x][y];
      }
    }
}

}  // namespace dla::cuda::detail
