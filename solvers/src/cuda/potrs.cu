// Cholesky solves on the device: two triangular solves through strsm/dtrsm
// (A = L L^T: L Y = B, L^T X = Y; A = U^T U: U^T Y = B, U X = Y), and posv.
#include <algorithm>

#include "dla/solvers/cholesky_cuda.hpp"
#include "dla/solvers/trsm_cuda.hpp"
#include "internal_blas.cuh"

namespace dla::cuda {
namespace {

// The arguments potrs and posv share (same positions): LAPACK-style error or 0.
template <class T>
int check_args(Uplo uplo, index_t n, index_t nrhs, const T* A, index_t lda, const T* B,
               index_t ldb) {
  if (uplo != Uplo::Lower && uplo != Uplo::Upper) return -1;
  if (n < 0) return -2;
  if (nrhs < 0) return -3;
  if (A == nullptr && n > 0) return -4;
  if (lda < std::max<index_t>(1, n)) return -5;
  if (B == nullptr && n > 0 && nrhs > 0) return -6;
  if (ldb < std::max<index_t>(1, n)) return -7;
  return 0;
}

template <class T>
int potrs_impl(stream_t s, Uplo uplo, index_t n, index_t nrhs, const T* A, index_t lda, T* B,
               index_t ldb) {
  if (int e = check_args(uplo, n, nrhs, A, lda, B, ldb)) return e;
  if (n == 0 || nrhs == 0) return 0;
  const Op first = uplo == Uplo::Lower ? Op::N : Op::T;
  const Op second = uplo == Uplo::Lower ? Op::T : Op::N;
  detail::trsm<T>(s, Side::Left, uplo, first, Diag::NonUnit, n, nrhs, T(1), A, lda, B, ldb);
  detail::trsm<T>(s, Side::Left, uplo, second, Diag::NonUnit, n, nrhs, T(1), A, lda, B, ldb);
  return 0;
}

template <class T>
int posv_impl(stream_t s, Uplo uplo, index_t n, index_t nrhs, T* A, index_t lda, T* B,
              index_t ldb, int* info, void* ws, std::size_t ws_bytes) {
  if (int e = check_args(uplo, n, nrhs, A, lda, B, ldb)) return e;
  if (info == nullptr) return -8;
  int r;
  if constexpr (std::is_same_v<T, float>) r = spotrf(s, uplo, n, A, lda, info, ws, ws_bytes);
  else r = dpotrf(s, uplo, n, A, lda, info, ws, ws_bytes);
  if (r != 0) return r == -6 ? -9 : r;
  return potrs_impl<T>(s, uplo, n, nrhs, A, lda, B, ldb);
}

}  // namespace

int spotrs(stream_t s, Uplo uplo, index_t n, index_t nrhs, const float* A, index_t lda, float* B,
           index_t ldb) {
  return potrs_impl<float>(s, uplo, n, nrhs, A, lda, B, ldb);
}
int dpotrs(stream_t s, Uplo uplo, index_t n, index_t nrhs, const double* A, index_t lda,
           double* B, index_t ldb) {
  return potrs_impl<double>(s, uplo, n, nrhs, A, lda, B, ldb);
}
int sposv(stream_t s, Uplo uplo, index_t n, index_t nrhs, float* A, index_t lda, float* B,
          index_t ldb, int* info, void* ws, std::size_t ws_bytes) {
  return posv_impl<float>(s, uplo, n, nrhs, A, lda, B, ldb, info, ws, ws_bytes);
}
int dposv(stream_t s, Uplo uplo, index_t n, index_t nrhs, double* A, index_t lda, double* B,
          index_t ldb, int* info, void* ws, std::size_t ws_bytes) {
  return posv_impl<double>(s, uplo, n, nrhs, A, lda, B, ldb, info, ws, ws_bytes);
}

}  // namespace dla::cuda
