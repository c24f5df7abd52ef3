#pragma once
// Internal pieces of the CUDA LU (not installed): the panel and the row swaps
// (dla's own GEMM and TRSM come from internal_blas.cuh).
#include <cstdint>
#include <string>
#include <type_traits>

#include "dla/core/error.hpp"
#include "dla/core/types.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "dla/solvers/trsm_cuda.hpp"
#include "internal_blas.cuh"

namespace dla::cuda::detail {

// Leaf width of the recursive panel: one cooperative kernel factors up to this
// many columns.
constexpr int kLeafCols = 32;
constexpr int kLeafThreads = 256;

// Bytes of scratch the panel needs for m rows (the leaf's candidate buffers).
template <class T>
std::size_t panel_workspace_bytes(index_t m);

// Factors the panel A[k0:m, k0:k0+w) of the matrix A (lda) in place:
// recursive splitting down to the leaf kernels, each of which also applies its
// row interchanges to the rest of the panel. Writes
// ipiv[k0 .. k0+w) (1-based global rows) and *info (first zero pivot, only
// while *info is 0). A is the matrix's base pointer (global indexing).
// plan: a swap-plan buffer used only by this panel's stream.
template <class T>
void panel_factor(stream_t s, index_t m, index_t k0, index_t w, T* A, index_t lda,
                  std::int32_t* ipiv, int* info, void* ws, int* plan);

// The leaf on one thread-block cluster (getrf_leaf_cluster.cu): factors the
// strip A[k0:m, k0:k0+w), w <= 64, in one launch, and applies its w
// interchanges to the ncl columns left of the strip and the ncr columns right
// of it (the rest of the panel). false when it cannot run here (no clusters,
// or a strip too tall for 16 CTAs): use the cooperative leaf then.
template <class T>
bool leaf_cluster(stream_t s, index_t m, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv,
                  int* info, int ncl, int ncr);
// The cluster leaf's width for strips of M rows: 64 columns (float, M <= 8192,
// fewer recursion levels) or kLeafCols. DLA_GETRF_LEAF_COLS=32 forces 32.
template <class T>
int leaf_cluster_width(index_t M);

// X = inv(L) for the unit lower triangle of L (n x n), one warp per column
// (getrf_inverse.cu). false when n is beyond its limit (256): use a trsm on
// the identity then.
template <class T>
bool invert_unit_lower(stream_t s, index_t n, const T* L, index_t ldl, T* X, index_t ldx);

// Row bookkeeping shared by the swap plans and the cluster leaf (rows
// relative to the first pivot row). The row whose content ends at `row`
// after the interchanges piv[0..npiv) were applied in order: undo them from
// the last to the first.
__device__ __forceinline__ int interchange_source(int row, const int* piv, int npiv) {
  int v = row;
#pragma unroll 8
  for (int u = npiv - 1; u >= 0; --u) {
    const int p = piv[u];
    v = v == u ? p : (v == p ? u : v);
  }
  return v;
}
// Lists (dst, src) for every row the interchanges change: the rows t < npiv
// and the pivot targets (a target that was the pivot twice is listed twice;
// the same move twice is harmless). Run by threads tid = 0 .. nthreads-1 of
// a block; *count (shared memory) must be 0 before, and the caller
// synchronizes after.
__device__ __forceinline__ void list_moved_rows(const int* piv, int npiv, int tid, int nthreads,
                                                int* count, int* dst, int* src) {
  for (int t = tid; t < 2 * npiv; t += nthreads) {
    const int row = t < npiv ? t : piv[t - npiv];
    if (t >= npiv && row < npiv) continue;  // listed by the first half
    const int v = interchange_source(row, piv, npiv);
    if (v != row) {
      const int e = atomicAdd(count, 1);
      dst[e] = row;
      src[e] = v;
    }
  }
}

// laswp on columns [c0, c0+nc) of A with pivots ipiv[k1..k2).
template <class T>
void laswp(stream_t s, T* A, index_t lda, index_t c0, index_t nc, index_t k1, index_t k2,
           const std::int32_t* ipiv, bool forward);

// Swap plans: the interchanges ipiv[k1..k2) turned once (one small kernel)
// into a list of (dst, src) row moves, applied to many columns in parallel
// without a per-column dependency chain. A plan buffer holds kPlanInts ints.
constexpr int kPlanMaxPiv = 1024;
constexpr int kPlanInts = 1 + 4 * kPlanMaxPiv;
inline std::size_t plan_bytes() { return (sizeof(int) * kPlanInts + 255) / 256 * 256; }
// Builds the plan for rows [k1, m); false when unsupported (more than
// kPlanMaxPiv pivots, or DLA_GETRF_SIMPLE_SWAP=1): then use laswp().
bool make_swap_plan(stream_t s, index_t m, index_t k1, index_t k2, const std::int32_t* ipiv,
                    int* plan);
template <class T>
void apply_swap_plan(stream_t s, T* A, index_t lda, index_t k1, index_t c0, index_t nc,
                     const int* plan);
// Plan + apply, or laswp() when no plan can be made.
template <class T>
void swap_rows(stream_t s, T* A, index_t lda, index_t m, index_t c0, index_t nc, index_t k1,
               index_t k2, const std::int32_t* ipiv, int* plan);

// laswp on columns [0, nc) when there are few of them: rows [0, nr) staged in
// shared memory per column (every pivot target must be < nr).
template <class T>
void laswp_few_columns(stream_t s, T* A, index_t lda, index_t nc, index_t nr, index_t k1,
                       index_t k2, const std::int32_t* ipiv, bool forward);

}  // namespace dla::cuda::detail
