#pragma once
// Batched dense solvers for many small systems on device buffers.
//
// Strided batches: `count` matrices, matrix b at A + b * strideA, each n x n
// column-major with leading dimension lda (strideA >= lda * n unless count <= 1).
// Pointer-array batches (`*_ptr`): matrix b at Aarray[b] (a device array of
// device pointers).
//
// Pivots: ipiv is a device int32 array of count * n entries, matrix b's at
// ipiv + b * n, 1-based row indices within the matrix (LAPACK getrf).
// info: a device int32 array of count entries, LAPACK semantics per matrix:
// 0 ok, k > 0: U(k,k) is exactly zero (getrf; the factorization still
// completes) or the leading minor of order k is not positive definite (potrf;
// the factorization of that member stops there). A failing member never
// disturbs the others.
//
// Kernels: n <= 32 register-resident (one thread per row, a sub-warp per
// matrix, lazy row swaps); n <= 256 one block per matrix in shared memory
// (global memory when it does not fit); n > 256 works through the same
// generic kernel (correct, not tuned). getrs/potrs need n * sizeof(T) <= 48 KB.
//
// Return value: 0, or -i when argument i is invalid (stream = 1, then in order).
// Asynchronous on `stream`; the info array is written by the device.
#include <cstdint>

#include "dla/core/types.hpp"

namespace dla::cuda {

// ---- LU with partial pivoting -------------------------------------------
// args: stream 1, n 2, A 3, lda 4, strideA 5, ipiv 6, info 7, count 8
int sgetrf_batched(stream_t stream, index_t n, float* A, index_t lda, index_t strideA,
                   std::int32_t* ipiv, std::int32_t* info, index_t count);
int dgetrf_batched(stream_t stream, index_t n, double* A, index_t lda, index_t strideA,
                   std::int32_t* ipiv, std::int32_t* info, index_t count);

// Solves op(A_b) X_b = B_b with the factors of getrf; B_b (n x nrhs, ldb) is
// overwritten. args: stream 1, op 2, n 3, nrhs 4, A 5, lda 6, strideA 7, ipiv 8,
// B 9, ldb 10, strideB 11, count 12
int sgetrs_batched(stream_t stream, Op op, index_t n, index_t nrhs, const float* A, index_t lda,
                   index_t strideA, const std::int32_t* ipiv, float* B, index_t ldb,
                   index_t strideB, index_t count);
int dgetrs_batched(stream_t stream, Op op, index_t n, index_t nrhs, const double* A, index_t lda,
                   index_t strideA, const std::int32_t* ipiv, double* B, index_t ldb,
                   index_t strideB, index_t count);

// getrf then getrs (op N). Members with info > 0 get an undefined B.
// args: stream 1, n 2, nrhs 3, A 4, lda 5, strideA 6, ipiv 7, B 8, ldb 9,
// strideB 10, info 11, count 12
int sgesv_batched(stream_t stream, index_t n, index_t nrhs, float* A, index_t lda, index_t strideA,
                  std::int32_t* ipiv, float* B, index_t ldb, index_t strideB, std::int32_t* info,
                  index_t count);
int dgesv_batched(stream_t stream, index_t n, index_t nrhs, double* A, index_t lda,
                  index_t strideA, std::int32_t* ipiv, double* B, index_t ldb, index_t strideB,
                  std::int32_t* info, index_t count);

// ---- Cholesky -------------------------------------------------------------
// Only the `uplo` triangle is read and written (Lower: A = L L^T, Upper: A = U^T U).
// args: stream 1, uplo 2, n 3, A 4, lda 5, strideA 6, info 7, count 8
int spotrf_batched(stream_t stream, Uplo uplo, index_t n, float* A, index_t lda, index_t strideA,
                   std::int32_t* info, index_t count);
int dpotrf_batched(stream_t stream, Uplo uplo, index_t n, double* A, index_t lda,
                   index_t strideA, std::int32_t* info, index_t count);

// args: stream 1, uplo 2, n 3, nrhs 4, A 5, lda 6, strideA 7, B 8, ldb 9, strideB 10, count 11
int spotrs_batched(stream_t stream, Uplo uplo, index_t n, index_t nrhs, const float* A,
                   index_t lda, index_t strideA, float* B, index_t ldb, index_t strideB,
                   index_t count);
int dpotrs_batched(stream_t stream, Uplo uplo, index_t n, index_t nrhs, const double* A,
                   index_t lda, index_t strideA, double* B, index_t ldb, index_t strideB,
                   index_t count);

// potrf then potrs. args: stream 1, uplo 2, n 3, nrhs 4, A 5, lda 6, strideA 7,
// B 8, ldb 9, strideB 10, info 11, count 12
int sposv_batched(stream_t stream, Uplo uplo, index_t n, index_t nrhs, float* A, index_t lda,
                  index_t strideA, float* B, index_t ldb, index_t strideB, std::int32_t* info,
                  index_t count);
int dposv_batched(stream_t stream, Uplo uplo, index_t n, index_t nrhs, double* A, index_t lda,
                  index_t strideA, double* B, index_t ldb, index_t strideB, std::int32_t* info,
                  index_t count);

// ---- Pointer-array variants ------------------------------------------------
// args as the strided versions without the strides:
// getrf: stream 1, n 2, Aarray 3, lda 4, ipiv 5, info 6, count 7
int sgetrf_batched_ptr(stream_t stream, index_t n, float* const* Aarray, index_t lda,
                       std::int32_t* ipiv, std::int32_t* info, index_t count);
int dgetrf_batched_ptr(stream_t stream, index_t n, double* const* Aarray, index_t lda,
                       std::int32_t* ipiv, std::int32_t* info, index_t count);
// getrs: stream 1, op 2, n 3, nrhs 4, Aarray 5, lda 6, ipiv 7, Barray 8, ldb 9, count 10
int sgetrs_batched_ptr(stream_t stream, Op op, index_t n, index_t nrhs, const float* const* Aarray,
                       index_t lda, const std::int32_t* ipiv, float* const* Barray, index_t ldb,
                       index_t count);
int dgetrs_batched_ptr(stream_t stream, Op op, index_t n, index_t nrhs,
                       const double* const* Aarray, index_t lda, const std::int32_t* ipiv,
                       double* const* Barray, index_t ldb, index_t count);
// potrf: stream 1, uplo 2, n 3, Aarray 4, lda 5, info 6, count 7
int spotrf_batched_ptr(stream_t stream, Uplo uplo, index_t n, float* const* Aarray, index_t lda,
                       std::int32_t* info, index_t count);
int dpotrf_batched_ptr(stream_t stream, Uplo uplo, index_t n, double* const* Aarray, index_t lda,
                       std::int32_t* info, index_t count);
// potrs: stream 1, uplo 2, n 3, nrhs 4, Aarray 5, lda 6, Barray 7, ldb 8, count 9
int spotrs_batched_ptr(stream_t stream, Uplo uplo, index_t n, index_t nrhs,
                       const float* const* Aarray, index_t lda, float* const* Barray, index_t ldb,
                       index_t count);
int dpotrs_batched_ptr(stream_t stream, Uplo uplo, index_t n, index_t nrhs,
                       const double* const* Aarray, index_t lda, double* const* Barray,
                       index_t ldb, index_t count);

}  // namespace dla::cuda
