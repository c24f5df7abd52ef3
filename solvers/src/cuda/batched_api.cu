// The dla::cuda::*_batched entry points: argument checks (LAPACK -i
// convention), then dispatch by size class: n <= 32 register-resident kernels,
// larger n the one-block-per-matrix kernels.
#include "batched_common.cuh"
#include "dla/core/cuda_check.hpp"
#include "dla/solvers/batched_cuda.hpp"

namespace dla::cuda {
namespace {
using batched::PtrArray;
using batched::Strided;

constexpr index_t kMaxSolveN = (48 * 1024) / (4 * 8);  // getrs/potrs staging limit (FP64)

index_t max1(index_t v) { return v > 1 ? v : 1; }

// Strided-layout checks shared by every routine: returns 0 or -pos.
// A strided batch of rows x cols matrices at argument position posA (the
// leading dimension and the stride follow it): LAPACK-style error or 0.
int check_matrix(index_t rows, index_t cols, const void* A, index_t lda, index_t stride,
                 index_t count, int posA) {
  if (lda < max1(rows)) return -(posA + 1);
  if (count > 1 && stride < lda * cols) return -(posA + 2);
  if (A == nullptr && rows > 0 && cols > 0 && count > 0) return -posA;
  return 0;
}

// Nothing to factor (n == 0): every member's info is 0.
void zero_info(stream_t s, std::int32_t* info, index_t count) {
  DLA_CUDA_CHECK(cudaMemsetAsync(info, 0, sizeof(std::int32_t) * std::size_t(count), s));
}

template <class T, class Loc>
void getrf_dispatch(stream_t s, index_t n, Loc A, index_t lda, std::int32_t* ipiv,
                    std::int32_t* info, index_t count) {
  if (n <= batched::kRegisterMaxN) batched::getrf_small<T>(s, int(n), A, lda, ipiv, info, count);
  else batched::getrf_block<T>(s, n, A, lda, ipiv, info, count);
}
template <class T, class LocA, class LocB>
void getrs_dispatch(stream_t s, Op op, index_t n, index_t nrhs, LocA A, index_t lda,
                    const std::int32_t* ipiv, LocB B, index_t ldb, index_t count) {
  if (op == Op::N && n <= batched::kRegisterMaxN)
    batched::getrs_small<T>(s, int(n), nrhs, A, lda, ipiv, B, ldb, count);
  else
    batched::getrs_warp<T>(s, op == Op::T, n, nrhs, A, lda, ipiv, B, ldb, count);
}
template <class T, class Loc>
void potrf_dispatch(stream_t s, Uplo uplo, index_t n, Loc A, index_t lda, std::int32_t* info,
                    index_t count) {
  const bool upper = uplo == Uplo::Upper;
  if (n <= batched::kRegisterMaxN) batched::potrf_small<T>(s, upper, int(n), A, lda, info, count);
  else batched::potrf_block<T>(s, upper, n, A, lda, info, count);
}
template <class T, class LocA, class LocB>
void potrs_dispatch(stream_t s, Uplo uplo, index_t n, index_t nrhs, LocA A, index_t lda, LocB B,
                    index_t ldb, index_t count) {
  const bool upper = uplo == Uplo::Upper;
  if (n <= batched::kRegisterMaxN)
    batched::potrs_small<T>(s, upper, int(n), nrhs, A, lda, B, ldb, count);
  else
    batched::potrs_warp<T>(s, upper, n, nrhs, A, lda, B, ldb, count);
}

bool valid_op(Op op) { return op == Op::N || op == Op::T; }
bool valid_uplo(Uplo u) { return u == Uplo::Lower || u == Uplo::Upper; }

// ---- strided -------------------------------------------------------------
template <class T>
int getrf_strided(stream_t s, index_t n, T* A, index_t lda, index_t sA, std::int32_t* ipiv,
                  std::int32_t* info, index_t count) {
  if (n < 0) return -2;
  if (int e = check_matrix(n, n, A, lda, sA, count, 3)) return e;
  if (ipiv == nullptr && n > 0 && count > 0) return -6;
  if (info == nullptr && count > 0) return -7;
  if (count < 0) return -8;
  if (count == 0) return 0;
  if (n == 0) {
    zero_info(s, info, count);
    return 0;
  }
  getrf_dispatch<T>(s, n, Strided<T>{A, sA}, lda, ipiv, info, count);
  return 0;
}

template <class T>
int getrs_strided(stream_t s, Op op, index_t n, index_t nrhs, const T* A, index_t lda, index_t sA,
                  const std::int32_t* ipiv, T* B, index_t ldb, index_t sB, index_t count) {
  if (!valid_op(op)) return -2;
  if (n < 0 || n > kMaxSolveN) return -3;
  if (nrhs < 0) return -4;
  if (int e = check_matrix(n, n, A, lda, sA, count, 5)) return e;
  if (ipiv == nullptr && n > 0 && count > 0) return -8;
  if (int e = check_matrix(n, nrhs, B, ldb, sB, count, 9)) return e;
  if (count < 0) return -12;
  if (count == 0 || n == 0 || nrhs == 0) return 0;
  getrs_dispatch<T>(s, op, n, nrhs, Strided<const T>{A, sA}, lda, ipiv, Strided<T>{B, sB}, ldb,
                    count);
  return 0;
}

template <class T>
int potrf_strided(stream_t s, Uplo uplo, index_t n, T* A, index_t lda, index_t sA,
                  std::int32_t* info, index_t count) {
  if (!valid_uplo(uplo)) return -2;
  if (n < 0) return -3;
  if (int e = check_matrix(n, n, A, lda, sA, count, 4)) return e;
  if (info == nullptr && count > 0) return -7;
  if (count < 0) return -8;
  if (count == 0) return 0;
  if (n == 0) {
    zero_info(s, info, count);
    return 0;
  }
  potrf_dispatch<T>(s, uplo, n, Strided<T>{A, sA}, lda, info, count);
  return 0;
}

template <class T>
int potrs_strided(stream_t s, Uplo uplo, index_t n, index_t nrhs, const T* A, index_t lda,
                  index_t sA, T* B, index_t ldb, index_t sB, index_t count) {
  if (!valid_uplo(uplo)) return -2;
  if (n < 0 || n > kMaxSolveN) return -3;
  if (nrhs < 0) return -4;
  if (int e = check_matrix(n, n, A, lda, sA, count, 5)) return e;
  if (int e = check_matrix(n, nrhs, B, ldb, sB, count, 8)) return e;
  if (count < 0) return -11;
  if (count == 0 || n == 0 || nrhs == 0) return 0;
  potrs_dispatch<T>(s, uplo, n, nrhs, Strided<const T>{A, sA}, lda, Strided<T>{B, sB}, ldb, count);
  return 0;
}

// gesv/posv: argument positions differ from getrf/getrs; check everything
// first so nothing runs when an argument is bad.
template <class T>
int gesv_strided(stream_t s, index_t n, index_t nrhs, T* A, index_t lda, index_t sA,
                 std::int32_t* ipiv, T* B, index_t ldb, index_t sB, std::int32_t* info,
                 index_t count) {
  if (n < 0 || n > kMaxSolveN) return -2;
  if (nrhs < 0) return -3;
  if (int e = check_matrix(n, n, A, lda, sA, count, 4)) return e;
  if (ipiv == nullptr && n > 0 && count > 0) return -7;
  if (int e = check_matrix(n, nrhs, B, ldb, sB, count, 8)) return e;
  if (info == nullptr && count > 0) return -11;
  if (count < 0) return -12;
  if (n > 0 && n <= batched::kRegisterMaxN && count > 0) {
    batched::gesv_small<T>(s, int(n), nrhs, Strided<T>{A, sA}, lda, ipiv, Strided<T>{B, sB}, ldb,
                           info, count);
    return 0;
  }
  if (int e = getrf_strided<T>(s, n, A, lda, sA, ipiv, info, count)) return e;
  return getrs_strided<T>(s, Op::N, n, nrhs, A, lda, sA, ipiv, B, ldb, sB, count) ? -1 : 0;
}

template <class T>
int posv_strided(stream_t s, Uplo uplo, index_t n, index_t nrhs, T* A, index_t lda, index_t sA,
                 T* B, index_t ldb, index_t sB, std::int32_t* info, index_t count) {
  if (!valid_uplo(uplo)) return -2;
  if (n < 0 || n > kMaxSolveN) return -3;
  if (nrhs < 0) return -4;
  if (int e = check_matrix(n, n, A, lda, sA, count, 5)) return e;
  if (int e = check_matrix(n, nrhs, B, ldb, sB, count, 8)) return e;
  if (info == nullptr && count > 0) return -11;
  if (count < 0) return -12;
  if (int e = potrf_strided<T>(s, uplo, n, A, lda, sA, info, count)) return e;
  return potrs_strided<T>(s, uplo, n, nrhs, A, lda, sA, B, ldb, sB, count) ? -1 : 0;
}

// ---- pointer arrays ------------------------------------------------------
template <class T>
int getrf_ptr(stream_t s, index_t n, T* const* A, index_t lda, std::int32_t* ipiv,
              std::int32_t* info, index_t count) {
  if (n < 0) return -2;
  if (A == nullptr && n > 0 && count > 0) return -3;
  if (lda < max1(n)) return -4;
  if (ipiv == nullptr && n > 0 && count > 0) return -5;
  if (info == nullptr && count > 0) return -6;
  if (count < 0) return -7;
  if (count == 0) return 0;
  if (n == 0) {
    zero_info(s, info, count);
    return 0;
  }
  getrf_dispatch<T>(s, n, PtrArray<T>{A}, lda, ipiv, info, count);
  return 0;
}

template <class T>
int getrs_ptr(stream_t s, Op op, index_t n, index_t nrhs, const T* const* A, index_t lda,
              const std::int32_t* ipiv, T* const* B, index_t ldb, index_t count) {
  if (!valid_op(op)) return -2;
  if (n < 0 || n > kMaxSolveN) return -3;
  if (nrhs < 0) return -4;
  if (A == nullptr && n > 0 && count > 0) return -5;
  if (lda < max1(n)) return -6;
  if (ipiv == nullptr && n > 0 && count > 0) return -7;
  if (B == nullptr && n > 0 && nrhs > 0 && count > 0) return -8;
  if (ldb < max1(n)) return -9;
  if (count < 0) return -10;
  if (count == 0 || n == 0 || nrhs == 0) return 0;
  getrs_dispatch<T>(s, op, n, nrhs, PtrArray<const T>{A}, lda, ipiv, PtrArray<T>{B}, ldb, count);
  return 0;
}

template <class T>
int potrf_ptr(stream_t s, Uplo uplo, index_t n, T* const* A, index_t lda, std::int32_t* info,
              index_t count) {
  if (!valid_uplo(uplo)) return -2;
  if (n < 0) return -3;
  if (A == nullptr && n > 0 && count > 0) return -4;
  if (lda < max1(n)) return -5;
  if (info == nullptr && count > 0) return -6;
  if (count < 0) return -7;
  if (count == 0) return 0;
  if (n == 0) {
    zero_info(s, info, count);
    return 0;
  }
  potrf_dispatch<T>(s, uplo, n, PtrArray<T>{A}, lda, info, count);
  return 0;
}

template <class T>
int potrs_ptr(stream_t s, Uplo uplo, index_t n, index_t nrhs, const T* const* A, index_t lda,
              T* const* B, index_t ldb, index_t count) {
  if (!valid_uplo(uplo)) return -2;
  if (n < 0 || n > kMaxSolveN) return -3;
  if (nrhs < 0) return -4;
  if (A == nullptr && n > 0 && count > 0) return -5;
  if (lda < max1(n)) return -6;
  if (B == nullptr && n > 0 && nrhs > 0 && count > 0) return -7;
  if (ldb < max1(n)) return -8;
  if (count < 0) return -9;
  if (count == 0 || n == 0 || nrhs == 0) return 0;
  potrs_dispatch<T>(s, uplo, n, nrhs, PtrArray<const T>{A}, lda, PtrArray<T>{B}, ldb, count);
  return 0;
}

}  // namespace

// ---- the exported entry points ----------------------------------------------
#define DLA_BATCHED_API(P, T)                                                                     \
  int P##getrf_batched(stream_t s, index_t n, T* A, index_t lda, index_t sA, std::int32_t* ipiv, \
                       std::int32_t* info, index_t count) {                                       \
    return getrf_strided<T>(s, n, A, lda, sA, ipiv, info, count);                                 \
  }                                                                                               \
  int P##getrs_batched(stream_t s, Op op, index_t n, index_t nrhs, const T* A, index_t lda,       \
                       index_t sA, const std::int32_t* ipiv, T* B, index_t ldb, index_t sB,       \
                       index_t count) {                                                           \
    return getrs_strided<T>(s, op, n, nrhs, A, lda, sA, ipiv, B, ldb, sB, count);                 \
  }                                                                                               \
  int P##gesv_batched(stream_t s, index_t n, index_t nrhs, T* A, index_t lda, index_t sA,         \
                      std::int32_t* ipiv, T* B, index_t ldb, index_t sB, std::int32_t* info,      \
                      index_t count) {                                                            \
    return gesv_strided<T>(s, n, nrhs, A, lda, sA, ipiv, B, ldb, sB, info, count);                \
  }                                                                                               \
  int P##potrf_batched(stream_t s, Uplo uplo, index_t n, T* A, index_t lda, index_t sA,           \
                       std::int32_t* info, index_t count) {                                       \
    return potrf_strided<T>(s, uplo, n, A, lda, sA, info, count);                                 \
  }                                                                                               \
  int P##potrs_batched(stream_t s, Uplo uplo, index_t n, index_t nrhs, const T* A, index_t lda,   \
                       index_t sA, T* B, index_t ldb, index_t sB, index_t count) {                \
    return potrs_strided<T>(s, uplo, n, nrhs, A, lda, sA, B, ldb, sB, count);                     \
  }                                                                                               \
  int P##posv_batched(stream_t s, Uplo uplo, index_t n, index_t nrhs, T* A, index_t lda,          \
                      index_t sA, T* B, index_t ldb, index_t sB, std::int32_t* info,              \
                      index_t count) {                                                            \
    return posv_strided<T>(s, uplo, n, nrhs, A, lda, sA, B, ldb, sB, info, count);                \
  }                                                                                               \
  int P##getrf_batched_ptr(stream_t s, index_t n, T* const* A, index_t lda, std::int32_t* ipiv,  \
                           std::int32_t* info, index_t count) {                                   \
    return getrf_ptr<T>(s, n, A, lda, ipiv, info, count);                                         \
  }                                                                                               \
  int P##getrs_batched_ptr(stream_t s, Op op, index_t n, index_t nrhs, const T* const* A,        \
                           index_t lda, const std::int32_t* ipiv, T* const* B, index_t ldb,       \
                           index_t count) {                                                       \
    return getrs_ptr<T>(s, op, n, nrhs, A, lda, ipiv, B, ldb, count);                             \
  }                                                                                               \
  int P##potrf_batched_ptr(stream_t s, Uplo uplo, index_t n, T* const* A, index_t lda,           \
                           std::int32_t* info, index_t count) {                                   \
    return potrf_ptr<T>(s, uplo, n, A, lda, info, count);                                         \
  }                                                                                               \
  int P##potrs_batched_ptr(stream_t s, Uplo uplo, index_t n, index_t nrhs, const T* const* A,    \
                           index_t lda, T* const* B, index_t ldb, index_t count) {                \
    return potrs_ptr<T>(s, uplo, n, nrhs, A, lda, B, ldb, count);                                 \
  }
DLA_BATCHED_API(s, float)
DLA_BATCHED_API(d, double)
#undef DLA_BATCHED_API

}  // namespace dla::cuda
