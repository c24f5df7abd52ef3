// getrs / gesv: solves with the getrf factors (swaps, then two triangular
// solves through dla::cuda::strsm/dtrsm), all on the caller's stream.
#include <cstdint>

#include "dla/core/cuda_check.hpp"
#include "dla/solvers/lu_cuda.hpp"
#include "getrf_internal.cuh"

namespace dla::cuda {
namespace {

template <class T>
int getrs_impl(stream_t s, Op op, index_t n, index_t nrhs, const T* A, index_t lda,
               const std::int32_t* ipiv, T* B, index_t ldb) {
  if (op != Op::N && op != Op::T) return -1;
  if (n < 0) return -2;
  if (nrhs < 0) return -3;
  if (n > 0 && A == nullptr) return -4;
  if (lda < (n > 1 ? n : 1)) return -5;
  if (n > 0 && ipiv == nullptr) return -6;
  if (n > 0 && nrhs > 0 && B == nullptr) return -7;
  if (ldb < (n > 1 ? n : 1)) return -8;
  if (n == 0 || nrhs == 0) return 0;
  if (op == Op::N) {  // A = P L U:  x = U^-1 L^-1 P^T b
    detail::laswp_few_columns<T>(s, B, ldb, nrhs, n, 0, n, ipiv, true);
    detail::trsm<T>(s, Side::Left, Uplo::Lower, Op::N, Diag::Unit, n, nrhs, T(1), A, lda, B, ldb);
    detail::trsm<T>(s, Side::Left, Uplo::Upper, Op::N, Diag::NonUnit, n, nrhs, T(1), A, lda, B,
                    ldb);
  } else {  // A^T = U^T L^T P^T:  x = P L^-T U^-T b
    detail::trsm<T>(s, Side::Left, Uplo::Upper, Op::T, Diag::NonUnit, n, nrhs, T(1), A, lda, B,
                    ldb);
    detail::trsm<T>(s, Side::Left, Uplo::Lower, Op::T, Diag::Unit, n, nrhs, T(1), A, lda, B, ldb);
    detail::laswp_few_columns<T>(s, B, ldb, nrhs, n, 0, n, ipiv, false);
  }
  return 0;
}

template <class T>
int gesv_impl(stream_t s, index_t n, index_t nrhs, T* A, index_t lda, std::int32_t* ipiv, T* B,
              index_t ldb, int* info, void* ws, std::size_t ws_bytes) {
  if (n < 0) return -1;
  if (nrhs < 0) return -2;
  if (n > 0 && A == nullptr) return -3;
  if (lda < (n > 1 ? n : 1)) return -4;
  if (n > 0 && ipiv == nullptr) return -5;
  if (n > 0 && nrhs > 0 && B == nullptr) return -6;
  if (ldb < (n > 1 ? n : 1)) return -7;
  if (info == nullptr) return -8;
  int r;
  if constexpr (std::is_same_v<T, float>) r = sgetrf(s, n, n, A, lda, ipiv, info, ws, ws_bytes);
  else r = dgetrf(s, n, n, A, lda, ipiv, info, ws, ws_bytes);
  if (r != 0) return r;
  return getrs_impl<T>(s, Op::N, n, nrhs, A, lda, ipiv, B, ldb);
}

}  // namespace

int sgetrs(stream_t s, Op op, index_t n, index_t nrhs, const float* A, index_t lda,
           const std::int32_t* ipiv, float* B, index_t ldb) {
  return getrs_impl<float>(s, op, n, nrhs, A, lda, ipiv, B, ldb);
}
int dgetrs(stream_t s, Op op, index_t n, index_t nrhs, const double* A, index_t lda,
           const std::int32_t* ipiv, double* B, index_t ldb) {
  return getrs_impl<double>(s, op, n, nrhs, A, lda, ipiv, B, ldb);
}
int sgesv(stream_t s, index_t n, index_t nrhs, float* A, index_t lda, std::int32_t* ipiv, float* B,
          index_t ldb, int* info, void* ws, std::size_t ws_bytes) {
  return gesv_impl<float>(s, n, nrhs, A, lda, ipiv, B, ldb, info, ws, ws_bytes);
}
int dgesv(stream_t s, index_t n, index_t nrhs, double* A, index_t lda, std::int32_t* ipiv,
          double* B, index_t ldb, int* info, void* ws, std::size_t ws_bytes) {
  return gesv_impl<double>(s, n, nrhs, A, lda, ipiv, B, ldb, info, ws, ws_bytes);
}

}  // namespace dla::cuda
