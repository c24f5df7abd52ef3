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
//          Misaligned A (below): with workspace_bytes >=
//          getrf_buffer_size<T>(m, n, A, lda), getrf factors an aligned copy.
//   getrs: solves op(A) X = B with the factors of getrf (A is n x n), B
//          (n x nrhs) overwritten by X. Returns 0 or -i (op = 1, n = 2,
//          nrhs = 3, A = 4, lda = 5, ipiv = 6, B = 7, ldb = 8).
//          Does not check for singularity: read getrf's info first.
//   gesv:  getrf (workspace as getrf's) + getrs(N). Returns 0 or -i (n = 1, nrhs = 2, A = 3, lda = 4,
//          ipiv = 5, B = 6, ldb = 7, info = 8). When *info > 0 on completion,
//          B holds no solution (Inf/NaN); check info.
//
// Alignment (session 50): the GEMM kernels of the trailing update move A in
// 16-byte vectors only where lda * sizeof(T) % 16 == 0 and A is 16-byte
// aligned. sgetrf at n = 4097 with lda = n ran 9.9 ms against 4096's 7.6
// (H100), its GEMM phase 5.9 ms against 3.2; 8.0 ms since the GEMM's scalar
// epilogue batches its loads, 7.85 with the copy (H100). Where A is not so
// aligned and getrf_pads(m, n), getrf copies A (m x n) into an aligned matrix
// (leading dimension rounded up to 32), factors it there and copies it back:
//   - workspace given: if workspace_bytes >= getrf_buffer_size(m, n, A, lda)
//     (the in-place bytes, rounded up to 256, then the copy) and the copy's
//     place in it is 16-byte aligned; else in place;
//   - workspace = nullptr: getrf allocates the copy with its scratch
//     (stream-ordered); if that allocation fails, it factors in place.
// getrf never writes more than workspace_bytes of a given workspace, nor
// outside A's m x n entries (the padding rows lda - m are not touched).
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

#include "dla/core/alignment.hpp"
#include "dla/core/types.hpp"

namespace dla::cuda {

// Bytes of workspace getrf needs in place (any A).
std::size_t sgetrf_buffer_size(index_t m, index_t n);
std::size_t dgetrf_buffer_size(index_t m, index_t n);
// Bytes of workspace getrf uses for this A: the in-place bytes, or, where A is
// misaligned and getrf_pads(m, n), those rounded up to 256 plus the aligned
// copy (sizeof(T) * aligned_ld(m) * n). A is only looked at for its address.
std::size_t sgetrf_buffer_size(index_t m, index_t n, const float* A, index_t lda);
std::size_t dgetrf_buffer_size(index_t m, index_t n, const double* A, index_t lda);
// Whether getrf factors a misaligned m x n A in an aligned copy (above):
// min(m, n) >= kGetrfPadMin. DLA_GETRF_PAD=1 / 0 overrides (every size / never).
bool getrf_pads(index_t m, index_t n);
inline constexpr index_t kGetrfPadMin = 1024;
// "Misaligned" is !dla::columns_aligned16(A, lda, sizeof(T)); the copy's
// leading dimension is dla::aligned_ld(m) (dla/core/alignment.hpp).

int sgetrf(stream_t stream, index_t m, index_t n, float* A, index_t lda, std::int32_t* ipiv,
           int* info, void* workspace = nullptr, std::size_t workspace_bytes = 0);
int dgetrf(stream_t stream, index_t m, index_t n, double* A, index_t lda, std::int32_t* ipiv,
           int* info, void* workspace = nullptr, std::size_t workspace_bytes = 0);

int sgetrs(stream_t stream, Op op, index_t n, index_t nrhs, const float* A, index_t lda,
           const std::int32_t* ipiv, float* B, index_t ldb);
int dgetrs(stream_t stream, Op op, index_t n, index_t nrhs, const double* A, index_t lda,
           const std::int32_t* ipiv, double* B, index_t ldb);

int sgesv(stream_t stream, index_t n, index_t nrhs, float* A, index_t lda, std::int32_t* ipiv,
          float* B, index_t ldb, int* info, void* workspace = nullptr,
          std::size_t workspace_bytes = 0);
int dgesv(stream_t stream, index_t n, index_t nrhs, double* A, index_t lda, std::int32_t* ipiv,
          double* B, index_t ldb, int* info, void* workspace = nullptr,
          std::size_t workspace_bytes = 0);

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
