#pragma once
// Leaf kernel of the recursive triangular solve: M x = alpha b for many
// vectors x, with M a small (k <= NB) triangle held in shared memory and each
// thread solving one vector in registers.
//
// The vectors are either columns of B (side Left: elements contiguous, vectors
// ldb apart) or rows of B (side Right: elements ldb apart, vectors contiguous);
// the caller passes the strides. M(i, j) = trans ? A(j, i) : A(i, j); only the
// stored triangle of A is read, and with `unit` its diagonal is not read.
#include <cuda_runtime.h>

#include "dla/core/types.hpp"

namespace dla::cuda::detail {

template <class T, int NB>
__global__ void __launch_bounds__(128) trsm_leaf_kernel(const T* __restrict__ A, index_t lda,
                                                        int k, bool trans, bool lower, bool unit,
                                                        T* B, index_t estride, index_t vstride,
                                                        index_t nvec, T alpha) {
  __shared__ T Ms[NB][NB + 1];
  // Fill M's triangle (the rest is zero so unused lanes stay finite).
  for (int idx = threadIdx.x; idx < NB * NB; idx += blockDim.x) {
    const int i = idx % NB, j = idx / NB;
    T v = T(0);
    const bool in_tri = lower ? (i >= j) : (i <= j);
    if (i < k && j < k && in_tri) {
      if (i == j && unit) v = T(1);
      else v = trans ? A[j + index_t(i) * lda] : A[i + index_t(j) * lda];
    }
    Ms[i][j] = v;
  }
  __syncthreads();
  const index_t v = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= nvec) return;
  T* b = B + v * vstride;
  T x[NB];
#pragma unroll
  for (int i = 0; i < NB; ++i) x[i] = i < k ? alpha * b[i * estride] : T(0);
  if (lower) {
#pragma unroll
    for (int i = 0; i < NB; ++i) {
      if (i < k) {
        if (!unit) x[i] = x[i] / Ms[i][i];
        const T xi = x[i];
#pragma unroll
        for (int r = i + 1; r < NB; ++r) x[r] -= Ms[r][i] * xi;
      }
    }
  } else {
#pragma unroll
    for (int i = NB - 1; i >= 0; --i) {
      if (i < k) {
        if (!unit) x[i] = x[i] / Ms[i][i];
        const T xi = x[i];
#pragma unroll
        for (int r = 0; r < i; ++r) x[r] -= Ms[r][i] * xi;
      }
    }
  }
#pragma unroll
  for (int i = 0; i < NB; ++i)
    if (i < k) b[i * estride] = x[i];
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
