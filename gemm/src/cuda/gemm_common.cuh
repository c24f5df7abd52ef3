#pragma once
// Shared pieces of the GEMM kernels: the argument check, the problem
// descriptor, guarded op-aware element access, the beta-only scaling kernel
// and the epilogue. Internal to gemm/src/cuda.
#include <cstdint>

#include "dla/core/cuda_check.hpp"
#include "dla/core/types.hpp"

namespace dla::cuda::detail {

// LAPACK-style check; argument numbers as documented in gemm_cuda.hpp.
inline int check_gemm_args(Op opA, Op opB, index_t m, index_t n, index_t k, index_t lda,
                           index_t ldb, index_t ldc) {
  if (opA != Op::N && opA != Op::T) return -1;
  if (opB != Op::N && opB != Op::T) return -2;
  if (m < 0) return -3;
  if (n < 0) return -4;
  if (k < 0) return -5;
  const index_t arows = opA == Op::N ? m : k;
  const index_t brows = opB == Op::N ? k : n;
  if (lda < (arows > 1 ? arows : 1)) return -8;
  if (ldb < (brows > 1 ? brows : 1)) return -10;
  if (ldc < (m > 1 ? m : 1)) return -13;
  return 0;
}

// Which part of C a launch computes and stores (sgemmt/ssyrk): all of it, or
// only the lower (i >= j) or upper (i <= j) triangle / trapezoid. Elements
// outside it are neither read nor written.
enum TriPart : int { kTriAll = 0, kTriLower = 1, kTriUpper = 2 };

__host__ __device__ inline bool in_tri(int tri, index_t i, index_t j) {
  return tri == kTriAll || (tri == kTriLower ? i >= j : i <= j);
}

// Square tiles of a tm x tn tile grid that meet the `tri` part of C: along
// min(tm, tn) tile columns (lower) or rows (upper), the c-th holding
// (tm or tn) - c tiles.
inline index_t tri_tile_count(index_t tm, index_t tn, int tri) {
  const index_t S = tm < tn ? tm : tn, L = tri == kTriLower ? tm : tn;
  return S * L - S * (S - 1) / 2;
}

// One GEMM problem as the kernels see it.
template <class T>
struct GemmArgs {
  bool ta, tb;  // opA == T, opB == T
  index_t m, n, k;
  T alpha;
  const T* A;
  index_t lda;
  const T* B;
  index_t ldb;
  T beta;
  T* C;
  index_t ldc;
  int tri = kTriAll;
};

// op(A)(i, p), zero outside the m x k range.
template <class T>
__device__ __forceinline__ T load_a(const GemmArgs<T>& g, index_t i, index_t p) {
  if (i >= g.m || p >= g.k) return T(0);
  return g.ta ? g.A[p + i * g.lda] : g.A[i + p * g.lda];
}
// op(B)(p, j), zero outside the k x n range.
template <class T>
__device__ __forceinline__ T load_b(const GemmArgs<T>& g, index_t p, index_t j) {
  if (p >= g.k || j >= g.n) return T(0);
  return g.tb ? g.B[j + p * g.ldb] : g.B[p + j * g.ldb];
}

// C(i, j) = alpha * acc + beta * C(i, j); beta == 0 never reads C. Guarded
// (matrix edge and, for triangular launches, the triangle).
template <class T>
__device__ __forceinline__ void store_c(const GemmArgs<T>& g, index_t i, index_t j, T acc) {
  if (i >= g.m || j >= g.n || !in_tri(g.tri, i, j)) return;
  T* c = g.C + i + j * g.ldc;
  *c = g.beta == T(0) ? g.alpha * acc : g.alpha * acc + g.beta * *c;
}

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

// C = beta * C (beta == 0 writes zeros without reading C), only the `tri` part.
template <class T>
void scale_c(stream_t s, index_t m, index_t n, T beta, T* C, index_t ldc, int tri = kTriAll);

}  // namespace dla::cuda::detail
