// The LU panel: recursive splitting down to a leaf kernel.
//
// The leaf normally runs on one thread-block cluster (getrf_leaf_cluster.cu).
// This file holds the fallback for strips too tall for a cluster (or
// DLA_GETRF_NO_CLUSTER=1), the cooperative leaf:
//
// Leaf (<= kLeafCols columns, rows [k0, m)): ONE cooperative launch factors
// the whole strip. The rows are spread over G blocks of kLeafThreads threads,
// each thread keeping R whole rows of the strip in registers (R = 1, 2 or 4,
// the smallest that lets every block be resident). Per column j, with a single
// grid-wide barrier:
//   1. each block reduces max |a(i,j)| over its rows i >= j (first index on
//      ties, as LAPACK's isamax) and publishes (value, row) plus a copy of that
//      candidate row; the owner of row j publishes row j (double-buffered by
//      the parity of j so the next column's writes never race this one's reads);
//   2. grid.sync();
//   3. every block reduces the G candidates itself (no second barrier), so it
//      knows the pivot row p and has both rows p and j in shared memory;
//      the owners swap them in registers, every thread scales its l(i,j) and
//      applies the rank-1 update to its remaining columns.
// Cost per column: one grid barrier (~1-2 us) plus a few hundred bytes of L2
// traffic; the strip is read and written once. See docs/lu.md.
//
// Wider panels recurse: factor the left half, TRSM + GEMM the right half,
// factor it (the Gustavson/Toledo recursion). Every leaf applies its row
// interchanges to all other columns of the panel (the cluster leaf inside
// its kernel, the cooperative one through swap plans), which is what the
// "swap the right half, swap the left half back" steps of the textbook
// recursion amount to.
#include <cooperative_groups.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <string>

#include "dla/core/cuda_check.hpp"
#include "getrf_internal.cuh"
#include "sfmin.cuh"

namespace cg = cooperative_groups;

namespace dla::cuda::detail {
namespace {

constexpr index_t kNoRow = LLONG_MAX;

template <class T>
struct LeafWs {
  T* cand_row;     // [2][G][kLeafCols]
  T* cand_abs;     // [2][G]
  T* diag_row;     // [2][kLeafCols]
  index_t* cand_idx;  // [2][G]
};

inline std::size_t align256(std::size_t b) { return (b + 255) / 256 * 256; }

inline index_t max_blocks_needed(index_t rows) {
  return (rows + kLeafThreads - 1) / kLeafThreads;
}

template <class T>
LeafWs<T> carve(void* ws, index_t G) {
  char* p = static_cast<char*>(ws);
  LeafWs<T> w;
  w.cand_row = reinterpret_cast<T*>(p);
  p += align256(sizeof(T) * 2 * G * kLeafCols);
  w.cand_abs = reinterpret_cast<T*>(p);
  p += align256(sizeof(T) * 2 * G);
  w.diag_row = reinterpret_cast<T*>(p);
  p += align256(sizeof(T) * 2 * kLeafCols);
  w.cand_idx = reinterpret_cast<index_t*>(p);
  return w;
}

// Reads of the candidate buffers written by other blocks before the grid
// barrier go around L1 (which is not coherent across SMs).
template <class T>
__device__ __forceinline__ T ld_l2(const T* p) { return __ldcg(p); }
__device__ __forceinline__ index_t ld_l2(const index_t* p) {
  return index_t(__ldcg(reinterpret_cast<const long long*>(p)));
}

template <class T>
__device__ __forceinline__ void better(T& bv, index_t& bi, int& bb, T v, index_t i, int b) {
  if (v > bv || (v == bv && i < bi)) { bv = v; bi = i; bb = b; }
}

// Both leaf kernels keep the strip in registers: thread `tid` of block `b`
// (of `nt` threads) holds rows li[r] = b nt R + r nt + tid, columns < w
// (zeros beyond M rows and w columns). I: the row index type.
template <class T, int NB, int R, class I>
__device__ __forceinline__ void load_strip(T (&a)[R][NB], I (&li)[R], I b, int nt, int tid, I M,
                                           int w, const T* A0, index_t lda) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    li[r] = b * (nt * R) + r * nt + tid;
    const bool ok = li[r] < M;
#pragma unroll
    for (int c = 0; c < NB; ++c) a[r][c] = (ok && c < w) ? A0[li[r] + index_t(c) * lda] : T(0);
  }
}
template <class T, int NB, int R, class I>
__device__ __forceinline__ void store_strip(const T (&a)[R][NB], const I (&li)[R], I M, int w,
                                            T* A0, index_t lda) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (li[r] < M) {
#pragma unroll
      for (int c = 0; c < NB; ++c)
        if (c < w) A0[li[r] + index_t(c) * lda] = a[r][c];
    }
  }
}

template <class T, int NB, int R>
__global__ void __launch_bounds__(kLeafThreads)
leaf_kernel(index_t M, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv, int* info,
            LeafWs<T> ws) {
  cg::grid_group grid = cg::this_grid();
  constexpr int kWarps = kLeafThreads / 32;
  __shared__ T s_u[NB], s_d[NB];
  __shared__ T s_wval[kWarps];
  __shared__ index_t s_widx[kWarps];
  __shared__ index_t s_piv;
  __shared__ int s_pb;
  __shared__ T s_pval;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int b = blockIdx.x, G = gridDim.x;
  T* A0 = A + k0 + k0 * lda;  // the strip's top-left element

  T a[R][NB];
  index_t li[R];
  load_strip<T, NB, R>(a, li, index_t(b), kLeafThreads, tid, M, w, A0, lda);
  int my_info = 0;

  // Column j of a register row, picked by an unrolled select (j is a run-time
  // value: the column loop is rolled so that its body stays in the
  // instruction cache; unrolled, each of the ~NB x 250 instructions was a
  // cold fetch and the leaf took ~4 us per column).
  auto col = [](const T(&row)[NB], int j) {
    T v = T(0);
#pragma unroll
    for (int c = 0; c < NB; ++c)
      if (c == j) v = row[c];
    return v;
  };
#pragma unroll 1
  for (int j = 0; j < w; ++j) {
    const int p = j & 1;
    // 1. block-local candidate for column j
    T bv = T(-1);
    index_t bi = kNoRow;
    int bb = 0;
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (li[r] >= j && li[r] < M) better(bv, bi, bb, fabs(col(a[r], j)), li[r], 0);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      const T ov = __shfl_down_sync(0xffffffffu, bv, off);
      const index_t oi = __shfl_down_sync(0xffffffffu, bi, off);
      better(bv, bi, bb, ov, oi, 0);
    }
    if (lane == 0) { s_wval[warp] = bv; s_widx[warp] = bi; }
    __syncthreads();
    if (warp == 0) {
      bv = lane < kWarps ? s_wval[lane] : T(-1);
      bi = lane < kWarps ? s_widx[lane] : kNoRow;
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) {
        const T ov = __shfl_down_sync(0xffffffffu, bv, off);
        const index_t oi = __shfl_down_sync(0xffffffffu, bi, off);
        better(bv, bi, bb, ov, oi, 0);
      }
      if (lane == 0) { s_piv = bi; s_pval = bv; }
    }
    __syncthreads();
    const index_t bp = s_piv;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (li[r] == bp) {
#pragma unroll
        for (int c = 0; c < NB; ++c) ws.cand_row[(index_t(p) * G + b) * NB + c] = a[r][c];
      }
      if (li[r] == j) {
#pragma unroll
        for (int c = 0; c < NB; ++c) ws.diag_row[p * NB + c] = a[r][c];
      }
    }
    if (tid == 0) {
      ws.cand_abs[index_t(p) * G + b] = s_pval;
      ws.cand_idx[index_t(p) * G + b] = bp;
    }
    grid.sync();
    // 3. every block reduces the G candidates
    if (warp == 0) {
      bv = T(-1);
      bi = kNoRow;
      bb = 0;
      for (int g = lane; g < G; g += 32)
        better(bv, bi, bb, ld_l2(ws.cand_abs + index_t(p) * G + g),
               ld_l2(ws.cand_idx + index_t(p) * G + g), g);
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) {
        const T ov = __shfl_down_sync(0xffffffffu, bv, off);
        const index_t oi = __shfl_down_sync(0xffffffffu, bi, off);
        const int ob = __shfl_down_sync(0xffffffffu, bb, off);
        better(bv, bi, bb, ov, oi, ob);
      }
      if (lane == 0) {
        // All-NaN column (no comparable value): keep row j, like isamax.
        if (!(bi >= j && bi < M)) { bi = j; bb = -1; }
        s_piv = bi;
        s_pb = bb;
      }
    }
    __syncthreads();
    const int pb = s_pb;
    for (int c = tid; c < NB; c += kLeafThreads) {
      s_d[c] = ld_l2(ws.diag_row + p * NB + c);
      s_u[c] = pb >= 0 ? ld_l2(ws.cand_row + (index_t(p) * G + pb) * NB + c) : s_d[c];
    }
    __syncthreads();
    const index_t piv = s_piv;
    const T pivval = s_u[j];  // shared memory: run-time index is fine
    if (b == 0 && tid == 0) {
      ipiv[k0 + j] = static_cast<std::int32_t>(k0 + piv + 1);
      if (pivval == T(0) && my_info == 0) my_info = j + 1;
    }
    // swap rows j and piv (row j takes the pivot row, row piv the old row j)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (li[r] == piv && piv != j) {
#pragma unroll
        for (int c = 0; c < NB; ++c) a[r][c] = s_d[c];
      }
      if (li[r] == j) {
#pragma unroll
        for (int c = 0; c < NB; ++c) a[r][c] = s_u[c];
      }
    }
    // scale and rank-1 update of the rows below the diagonal; a pivot below
    // the smallest normal number is divided by, as in LAPACK's getf2 (its
    // reciprocal would overflow)
    // (scaled by 2^64, sfmin.cuh)
    if (pivval != T(0)) {
      const T sc = tiny_scale<T>(!(fabs(pivval) >= smallest_normal<T>()));
      const T inv = T(1) / (pivval * sc);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (li[r] > j && li[r] < M) {
          const T l = (col(a[r], j) * sc) * inv;
#pragma unroll
          for (int c = 0; c < NB; ++c) {
            if (c == j) a[r][c] = l;
            else if (c > j) a[r][c] -= l * s_u[c];
          }
        }
      }
    }
  }
  store_strip<T, NB, R>(a, li, M, w, A0, lda);
  if (b == 0 && tid == 0 && my_info != 0 && *info == 0) *info = static_cast<int>(k0 + my_info);
}

template <class T, int R>
int max_coop_blocks() {
  static std::atomic<int> cached[64] = {};  // 0: not computed yet
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  int c = cached[dev & 63].load(std::memory_order_relaxed);
  if (c == 0) {
    int per_sm = 0, sms = 0;
    DLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, leaf_kernel<T, kLeafCols, R>, kLeafThreads, 0));
    DLA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    c = per_sm * sms;
    cached[dev & 63].store(c, std::memory_order_relaxed);
  }
  return c;
}

template <class T, int R>
bool try_leaf(stream_t s, index_t m, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv,
              int* info, void* ws) {
  const index_t M = m - k0;
  const index_t G = (M + kLeafThreads * R - 1) / (kLeafThreads * R);
  if (G > max_coop_blocks<T, R>()) return false;
  LeafWs<T> lws = carve<T>(ws, max_blocks_needed(M));
  void* args[] = {(void*)&M, (void*)&k0, (void*)&w, (void*)&A, (void*)&lda,
                  (void*)&ipiv, (void*)&info, (void*)&lws};
  DLA_CUDA_CHECK(cudaLaunchCooperativeKernel((const void*)leaf_kernel<T, kLeafCols, R>,
                                             dim3(unsigned(G)), dim3(kLeafThreads), args, 0,
                                             reinterpret_cast<cudaStream_t>(s)));
  DLA_CUDA_CHECK_LAUNCH();
  return true;
}

template <class T>
void panel_rec(stream_t s, index_t m, index_t k0, index_t w, T* A, index_t lda,
               std::int32_t* ipiv, int* info, void* ws, int* plan, index_t p0, index_t p1,
               index_t lw);

bool cluster_disabled() {
  const char* e = std::getenv("DLA_GETRF_NO_CLUSTER");  // read per call: tests flip it
  return e && *e && *e != '0';
}

// A leaf: columns [k0, k0+w) of the panel [p0, p1), rows [k0, m). Factors
// the strip and applies its interchanges to the panel's other columns.
template <class T>
void leaf(stream_t s, index_t m, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv,
          int* info, void* ws, int* plan, index_t p0, index_t p1) {
  if (!cluster_disabled() &&
      leaf_cluster<T>(s, m, k0, w, A, lda, ipiv, info, int(k0 - p0), int(p1 - k0 - w)))
    return;
  if (w > kLeafCols)  // a wide leaf the cluster kernel refused: narrow ones
    return panel_rec<T>(s, m, k0, w, A, lda, ipiv, info, ws, plan, p0, p1, kLeafCols);
  if (!(try_leaf<T, 1>(s, m, k0, w, A, lda, ipiv, info, ws) ||
        try_leaf<T, 2>(s, m, k0, w, A, lda, ipiv, info, ws) ||
        try_leaf<T, 4>(s, m, k0, w, A, lda, ipiv, info, ws)))
    throw DeviceError("getrf: panel of " + std::to_string(m - k0) +
                      " rows exceeds what the cooperative leaf kernel keeps resident");
  swap_rows<T>(s, A, lda, m, p0, k0 - p0, k0, k0 + w, ipiv, plan);
  swap_rows<T>(s, A, lda, m, k0 + w, p1 - k0 - w, k0, k0 + w, ipiv, plan);
}

// Gustavson/Toledo recursion over columns [k0, k0+w) of the panel [p0, p1)
// down to leaves of at most lw columns. The leaves apply their interchanges
// to the whole panel, so no node swaps.
template <class T>
void panel_rec(stream_t s, index_t m, index_t k0, index_t w, T* A, index_t lda,
               std::int32_t* ipiv, int* info, void* ws, int* plan, index_t p0, index_t p1,
               index_t lw) {
  if (w <= lw) return leaf<T>(s, m, k0, int(w), A, lda, ipiv, info, ws, plan, p0, p1);
  // split at a multiple of the leaf width, about half way
  const index_t n1 = ((w / 2 + lw - 1) / lw) * lw;
  const index_t n2 = w - n1;
  panel_rec<T>(s, m, k0, n1, A, lda, ipiv, info, ws, plan, p0, p1, lw);
  const index_t k1 = k0 + n1;
  trsm<T>(s, Side::Left, Uplo::Lower, Op::N, Diag::Unit, n1, n2, T(1), A + k0 + k0 * lda, lda,
          A + k0 + k1 * lda, lda);
  gemm<T>(s, Op::N, Op::N, m - k1, n2, n1, T(-1), A + k1 + k0 * lda, lda, A + k0 + k1 * lda, lda,
          T(1), A + k1 + k1 * lda, lda);
  panel_rec<T>(s, m, k1, n2, A, lda, ipiv, info, ws, plan, p0, p1, lw);
}

}  // namespace

template <class T>
std::size_t panel_workspace_bytes(index_t m) {
  const index_t G = max_blocks_needed(m > 0 ? m : 1);
  return align256(sizeof(T) * 2 * G * kLeafCols) + align256(sizeof(T) * 2 * G) +
         align256(sizeof(T) * 2 * kLeafCols) + align256(sizeof(index_t) * 2 * G);
}

template <class T>
void panel_factor(stream_t s, index_t m, index_t k0, index_t w, T* A, index_t lda,
                  std::int32_t* ipiv, int* info, void* ws, int* plan) {
  if (w <= 0 || m - k0 <= 0) return;
  const index_t lw = cluster_disabled() ? kLeafCols : leaf_cluster_width<T>(m - k0);
  panel_rec<T>(s, m, k0, w, A, lda, ipiv, info, ws, plan, k0, k0 + w, lw);
}

template std::size_t panel_workspace_bytes<float>(index_t);
template std::size_t panel_workspace_bytes<double>(index_t);
template void panel_factor<float>(stream_t, index_t, index_t, index_t, float*, index_t,
                                  std::int32_t*, int*, void*, int*);
template void panel_factor<double>(stream_t, index_t, index_t, index_t, double*, index_t,
                                   std::int32_t*, int*, void*, int*);

}  // namespace dla::cuda::detail
