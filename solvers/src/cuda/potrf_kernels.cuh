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

template <class T, int NB>
__global__ void __launch_bounds__(256) potf2_kernel(T* A, index_t lda, int k, bool upper,
                                                    int* info, index_t offset) {
  __shared__ T L[NB][NB + 1];
  __shared__ int failed;
  if (*info != 0) return;  // an earlier minor failed: the factorization stopped there
  const int tid = threadIdx.x;
  for (int idx = tid; idx < k * k; idx += blockDim.x) {
    const int i = idx % k, j = idx / k;
    if (i >= j) L[i][j] = upper ? A[j + index_t(i) * lda] : A[i + index_t(j) * lda];
  }
  if (tid == 0) failed = 0;
  __syncthreads();
  int done = k;
  for (int c = 0; c < k; ++c) {
    const T d = L[c][c];
    if (!(d > T(0))) {  // also catches NaN
      if (tid == 0) { failed = 1; *info = int(offset + c + 1); }
      done = c;
      break;
    }
    const T s = sqrt_t(d);
    __syncthreads();  // everyone has read L[c][c]
    for (int i = c + 1 + tid; i < k; i += blockDim.x) L[i][c] /= s;
    if (tid == 0) L[c][c] = s;
    __syncthreads();
    const int r = k - c - 1;
    for (int idx = tid; idx < r * r; idx += blockDim.x) {
      const int i = c + 1 + idx % r, j = c + 1 + idx / r;
      if (i >= j) L[i][j] -= L[i][c] * L[j][c];
    }
    __syncthreads();
  }
  (void)done;
  __syncthreads();
  for (int idx = tid; idx < k * k; idx += blockDim.x) {
    const int i = idx % k, j = idx / k;
    if (i >= j) {
      if (upper) A[j + index_t(i) * lda] = L[i][j];
      else A[i + index_t(j) * lda] = L[i][j];
    }
  }
}

// C -= X X^T on the diagonal blocks [b w, min(r, (b+1) w))^2 of the r x r
// matrix C, only the lower triangle of each block (upper: C -= X^T X, upper
// triangle). X(i, p) = upper ? P[p + i ldp] : P[i + p ldp], p < kk.
// Grid: x = 64 x 64 sub-tile pair (ti, tj) of a block, y = block index.
template <class T>
__global__ void __launch_bounds__(256) syrk_diag_kernel(T* C, index_t ldc, const T* P,
                                                        index_t ldp, index_t r, index_t kk,
                                                        index_t w, bool upper) {
  constexpr int TS = 64, KT = 16;
  __shared__ T As[KT][TS + 1];
  __shared__ T Bs[KT][TS + 1];
  const index_t tiles = (w + TS - 1) / TS;
  const index_t ti = blockIdx.x % tiles, tj = blockIdx.x / tiles;
  if (ti < tj) return;  // strictly above the diagonal of the block
  const index_t b0 = index_t(blockIdx.y) * w;
  const index_t bend = b0 + w < r ? b0 + w : r;
  const index_t row0 = b0 + ti * TS, col0 = b0 + tj * TS;
  if (row0 >= bend || col0 >= bend) return;
  const int tid = threadIdx.x, tr = tid % 16, tc = tid / 16;
  T acc[4][4] = {};
  for (index_t p0 = 0; p0 < kk; p0 += KT) {
    for (int idx = tid; idx < KT * TS; idx += 256) {
      int ii, pp;
      if (upper) { pp = idx % KT; ii = idx / KT; } else { ii = idx % TS; pp = idx / TS; }
      const index_t p = p0 + pp;
      const index_t ia = row0 + ii, ib = col0 + ii;
      T va = T(0), vb = T(0);
      if (p < kk) {
        if (ia < bend) va = upper ? P[p + ia * ldp] : P[ia + p * ldp];
        if (ib < bend) vb = upper ? P[p + ib * ldp] : P[ib + p * ldp];
      }
      As[pp][ii] = va;
      Bs[pp][ii] = vb;
    }
    __syncthreads();
#pragma unroll
    for (int pp = 0; pp < KT; ++pp) {
      T a[4], b[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) { a[q] = As[pp][tr + 16 * q]; b[q] = Bs[pp][tc + 16 * q]; }
#pragma unroll
      for (int x = 0; x < 4; ++x)
#pragma unroll
        for (int y = 0; y < 4; ++y) acc[x][y] += a[x] * b[y];
    }
    __syncthreads();
  }
#pragma unroll
  for (int x = 0; x < 4; ++x)
#pragma unroll
    for (int y = 0; y < 4; ++y) {
      const index_t i = row0 + tr + 16 * x, j = col0 + tc + 16 * y;
      if (i < bend && j < bend && i >= j) {
        T* c = upper ? C + j + i * ldc : C + i + j * ldc;
        *c -= acc[x][y];
      }
    }
}

}  // namespace dla::cuda::detail
