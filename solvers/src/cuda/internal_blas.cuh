#pragma once
// dla's own GEMM and TRSM as called from inside other routines (getrf, potrf,
// potrs, the trsm recursion). Their arguments are valid by construction, so a
// rejected argument is a bug in dla: it throws instead of being ignored.
// Empty products return at once (BLAS quick return). FP32 products run in
// the solvers' mode, solver_fp32_gemm() (gemm_cuda.hpp: Tf32x3 on Hopper, else Native).
#include <string>
#include <type_traits>

#include "dla/core/error.hpp"
#include "dla/core/types.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "dla/solvers/trsm_cuda.hpp"

namespace dla::cuda::detail {

template <class T>
inline void gemm(stream_t s, Op a, Op b, index_t m, index_t n, index_t k, T alpha, const T* A,
                 index_t lda, const T* B, index_t ldb, T beta, T* C, index_t ldc) {
  if (m <= 0 || n <= 0) return;
  int info = 0;
  if constexpr (std::is_same_v<T, float>)
    info = cuda::sgemm(s, a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, solver_fp32_gemm());
  else
    info = cuda::gemm(s, a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  if (info != 0)
    throw Error("dla internal GEMM call rejected argument " + std::to_string(-info) + " (a bug)");
}

template <class T>
inline void gemmt(stream_t s, Uplo uplo, Op a, Op b, index_t m, index_t n, index_t k, T alpha,
                  const T* A, index_t lda, const T* B, index_t ldb, T beta, T* C, index_t ldc) {
  if (m <= 0 || n <= 0) return;
  int info = 0;
  if constexpr (std::is_same_v<T, float>)
    info = cuda::sgemmt(s, uplo, a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                        solver_fp32_gemm());
  else
    info = cuda::gemmt(s, uplo, a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  if (info != 0)
    throw Error("dla internal GEMMT call rejected argument " + std::to_string(-info) + " (a bug)");
}

template <class T>
inline void trsm(stream_t s, Side side, Uplo uplo, Op op, Diag diag, index_t m, index_t n,
                 T alpha, const T* A, index_t lda, T* B, index_t ldb) {
  if (m <= 0 || n <= 0) return;
  if (const int info = cuda::trsm(s, side, uplo, op, diag, m, n, alpha, A, lda, B, ldb))
    throw Error("dla internal trsm call rejected argument " + std::to_string(-info) + " (a bug)");
}

}  // namespace dla::cuda::detail
