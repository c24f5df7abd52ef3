#pragma once
// Triangular solve with many right-hand sides on device buffers (BLAS trsm):
//   side = Left :  op(A) * X = alpha * B      (A is m x m)
//   side = Right:  X * op(A) = alpha * B      (A is n x n)
// B (m x n) is overwritten by X. Only the `uplo` triangle of A is read; with
// diag = Unit its diagonal is not read and taken as 1. Blocked: small diagonal
// blocks are solved in a kernel, the rest through dla's own GEMM.
// Returns 0, or -i for invalid argument i (side = 1, uplo = 2, opA = 3,
// diag = 4, m = 5, n = 6, alpha = 7, A = 8, lda = 9, B = 10, ldb = 11).
// Asynchronous on `stream`.
#include "dla/core/types.hpp"

namespace dla::cuda {

int strsm(stream_t stream, Side side, Uplo uplo, Op opA, Diag diag, index_t m, index_t n,
          float alpha, const float* A, index_t lda, float* B, index_t ldb);
int dtrsm(stream_t stream, Side side, Uplo uplo, Op opA, Diag diag, index_t m, index_t n,
          double alpha, const double* A, index_t lda, double* B, index_t ldb);

// Overloads by element type, for code templated on float/double.
inline int trsm(stream_t s, Side side, Uplo uplo, Op opA, Diag diag, index_t m, index_t n,
                float alpha, const float* A, index_t lda, float* B, index_t ldb) {
  return strsm(s, side, uplo, opA, diag, m, n, alpha, A, lda, B, ldb);
}
inline int trsm(stream_t s, Side side, Uplo uplo, Op opA, Diag diag, index_t m, index_t n,
                double alpha, const double* A, index_t lda, double* B, index_t ldb) {
  return dtrsm(s, side, uplo, opA, diag, m, n, alpha, A, lda, B, ldb);
}

}  // namespace dla::cuda
