#pragma once
// LU factorization with partial pivoting on device buffers (LAPACK getrf /
// getrs / gesv semantics, column-major, the caller's stream, asynchronous).
//
//   getrf: A (m x n) = P * L * U, L unit lower (m x min(m,n)), U upper
//          (min(m,n) x n), overwriting A. ipiv: int32 device array of
//          min(m,n) 1-based row interchanges (row i was swapped with ipiv[i]-1,
//          in order). info: device int, written asynchronously (cuSOLVER
//          devInfo style): 0, or the 1-based index of the first exactly zero
//          pivot U(i,i); the factorization still completes.
//          Returns 0, or -i for invalid argument i (m = 1, n = 2, A = 3,
//          lda = 4, ipiv = 5, info = 6; stream not counted).
//          workspace: device scratch of getrf_buffer_size<T>(m, n) bytes, or
//          nullptr to let the routine allocate it (stream-ordered) itself.
//   getrs: solves op(A) X = B with the factors of getrf (A is n x n), B
//          (n x nrhs) overwritten by X. Returns 0 or -i (op = 1, n = 2,
//          nrhs = 3, A = 4, lda = 5, ipiv = 6, B = 7, ldb = 8).
//          Does not check for singularity: read getrf's info first.
//   gesv:  getrf + getrs(N). Returns 0 or -i (n = 1, nrhs = 2, A = 3, lda = 4,
//          ipiv = 5, B = 6, ldb = 7, info = 8). When *info > 0 on completion,
//          B holds no solution (Inf/NaN); check info.
//
// Algorithm (docs/lu.md): right-looking blocked LU, block size nb tuned per n
// (env DLA_GETRF_NB overrides), look-ahead (the next panel is updated first
// and factored on a second stream while the rest of the trailing update runs),
// a recursive panel whose leaves (<= 32 columns) are one cooperative kernel
// (pivot search, swap, scale and update without host round trips), and a
// laswp kernel with the pivots in device memory. Trailing updates use
// dla::cuda::sgemm/dgemm, U12 = L11^-1 A12 uses dla::cuda::strsm/dtrsm.
#include <cstddef>
#include <cstdint>

#include "dla/core/types.hpp"

namespace dla::cuda {

std::size_t sgetrf_buffer_size(index_t m, index_t n);
std::size_t dgetrf_buffer_size(index_t m, index_t n);

int sgetrf(stream_t stream, index_t m, index_t n, float* A, index_t lda, std::int32_t* ipiv,
           int* info, void* workspace = nullptr);
int dgetrf(stream_t stream, index_t m, index_t n, double* A, index_t lda, std::int32_t* ipiv,
           int* info, void* workspace = nullptr);

int sgetrs(stream_t stream, Op op, index_t n, index_t nrhs, const float* A, index_t lda,
           const std::int32_t* ipiv, float* B, index_t ldb);
int dgetrs(stream_t stream, Op op, index_t n, index_t nrhs, const double* A, index_t lda,
           const std::int32_t* ipiv, double* B, index_t ldb);

int sgesv(stream_t stream, index_t n, index_t nrhs, float* A, index_t lda, std::int32_t* ipiv,
          float* B, index_t ldb, int* info, void* workspace = nullptr);
int dgesv(stream_t stream, index_t n, index_t nrhs, double* A, index_t lda, std::int32_t* ipiv,
          double* B, index_t ldb, int* info, void* workspace = nullptr);

// Applies row interchanges ipiv[k1..k2) (1-based, global row indices) to the
// n columns of A: forward (k = k1, ..., k2-1) or backward. LAPACK laswp.
int slaswp(stream_t stream, index_t n, float* A, index_t lda, index_t k1, index_t k2,
           const std::int32_t* ipiv, bool forward = true);
int dlaswp(stream_t stream, index_t n, double* A, index_t lda, index_t k1, index_t k2,
           const std::int32_t* ipiv, bool forward = true);

// The block size getrf uses for an m x n matrix (DLA_GETRF_NB overrides).
index_t getrf_block_size(index_t m, index_t n);

// With DLA_GETRF_PROFILE=1 in the environment, getrf runs without look-ahead,
// times each phase with CUDA events and synchronizes at the end; the split of
// the last such call (milliseconds) is kept here. All zero otherwise.
struct GetrfProfile {
  double panel_ms = 0, swap_ms = 0, trsm_ms = 0, gemm_ms = 0, total_ms = 0;
};
GetrfProfile getrf_last_profile();

}  // namespace dla::cuda
