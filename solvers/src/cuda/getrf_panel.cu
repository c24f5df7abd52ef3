// The LU panel: recursive splitting down to a cooperative leaf kernel.
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
// Wider panels recurse: factor the left half, swap + TRSM + GEMM the right
// half, factor it, swap the left half back (the Gustavson/Toledo recursion).
#include <cooperative_groups.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "dla/core/cuda_check.hpp"
#include "getrf_internal.cuh"

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
#pragma unroll
  for (int r = 0; r < R; ++r) {
    li[r] = index_t(b) * (kLeafThreads * R) + r * kLeafThreads + tid;
    const bool ok = li[r] < M;
#pragma unroll
    for (int c = 0; c < NB; ++c) a[r][c] = (ok && c < w) ? A0[li[r] + index_t(c) * lda] : T(0);
  }
  int my_info = 0;

#pragma unroll
  for (int j = 0; j < NB; ++j) {
    if (j >= w) break;
    const int p = j & 1;
    // 1. block-local candidate for column j
    T bv = T(-1);
    index_t bi = kNoRow;
    int bb = 0;
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (li[r] >= j && li[r] < M) better(bv, bi, bb, fabs(a[r][j]), li[r], 0);
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
    const T pivval = s_u[j];
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
    // scale and rank-1 update of the rows below the diagonal
    if (pivval != T(0)) {
      const T inv = T(1) / pivval;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (li[r] > j && li[r] < M) {
          const T l = a[r][j] * inv;
          a[r][j] = l;
#pragma unroll
          for (int c = j + 1; c < NB; ++c) a[r][c] -= l * s_u[c];
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (li[r] < M) {
#pragma unroll
      for (int c = 0; c < NB; ++c)
        if (c < w) A0[li[r] + index_t(c) * lda] = a[r][c];
    }
  }
  if (b == 0 && tid == 0 && my_info != 0 && *info == 0) *info = static_cast<int>(k0 + my_info);
}

// ---------------------------------------------------------------------------
// Low-latency leaf (the default): the same per-thread row layout, but the
// per-column exchange between blocks needs no grid barrier and no fence. Each
// 32-bit piece of a published value travels in one 64-bit word together with
// a tag (the global column index + 1; the NCCL "LL" protocol): a reader polls
// the words until their tags match, so data and "ready" arrive together in
// one L2 round trip. Per column:
//   1. every warp reduces its candidate (value, row) with shuffles and the
//      owner lane copies the candidate row to shared memory (double-buffered
//      by the parity of j); the owner of row j copies it too; one barrier;
//   2. G == 1: every thread reduces the 8 warp candidates from shared memory;
//      done (one __syncthreads per column, no global traffic at all);
//      G > 1: warp 0 picks the block's candidate and publishes (value, row,
//      its 32 entries; block 0 also row j) as tagged words; warp 0 then polls
//      the G headers and reduces them, warps 1..7 poll all G candidate rows
//      and row j at once (no dependent second round trip); one barrier;
//   3. swap, scale, rank-1 update in registers.
// The tagged slots are double-buffered by the parity of j: a block republishes
// parity p only after it has read every block's column j+1, which each block
// published after reading its column j. Tags are unique within a getrf
// (getrf zeroes the slots first), so stale words never match.
constexpr int kLLMaxG = 32;  // blocks of the low-latency leaf (more: the cooperative one)

template <class T>
struct LLWs {
  unsigned long long* slots;  // [2][kLLMaxG][slot words]
  unsigned long long* diag;   // [2][kLeafCols * words per value]
};
template <class T>
__host__ __device__ constexpr int ll_words() { return int(sizeof(T) / 4); }
template <class T>
__host__ __device__ constexpr int ll_slot_words() { return ll_words<T>() + 1 + kLeafCols * ll_words<T>(); }
template <class T>
std::size_t ll_bytes() {
  return align256(sizeof(unsigned long long) * 2 * kLLMaxG * ll_slot_words<T>()) +
         align256(sizeof(unsigned long long) * 2 * kLeafCols * ll_words<T>());
}

__device__ __forceinline__ void ll_store(unsigned long long* p, unsigned payload, unsigned tag) {
  const unsigned long long v = (static_cast<unsigned long long>(tag) << 32) | payload;
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long ll_load(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ll_piece(float x, int) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned ll_piece(double x, int h) {
  const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(x));
  return h == 0 ? unsigned(b) : unsigned(b >> 32);
}
template <class T>
__device__ __forceinline__ T ll_value(const unsigned* w) {
  if constexpr (sizeof(T) == 4) {
    return __uint_as_float(w[0]);
  } else {
    return __longlong_as_double(
        static_cast<long long>((static_cast<unsigned long long>(w[1]) << 32) | w[0]));
  }
}

template <class T>
__device__ __forceinline__ void better_i(T& bv, int& bi, int& bq, T v, int i, int q) {
  if (v > bv || (v == bv && i < bi)) { bv = v; bi = i; bq = q; }
}
template <class T>
__device__ __forceinline__ void warp_best(T& bv, int& bi, int& bq) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const T ov = __shfl_xor_sync(0xffffffffu, bv, off);
    const int oi = __shfl_xor_sync(0xffffffffu, bi, off);
    const int oq = __shfl_xor_sync(0xffffffffu, bq, off);
    better_i(bv, bi, bq, ov, oi, oq);
  }
}

template <class T, int R>
__global__ void __launch_bounds__(kLeafThreads)
ll_leaf_kernel(int M, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv, int* info,
               LLWs<T> ws) {
  constexpr int NB = kLeafCols, W = ll_words<T>(), kSlot = ll_slot_words<T>();
  constexpr int kWarps = kLeafThreads / 32;
  constexpr int kPollers = kLeafThreads - 32;
  constexpr int kPer = ((kLLMaxG + 1) * NB + kPollers - 1) / kPollers;
  __shared__ T s_wv[2][kWarps];
  __shared__ int s_wi[2][kWarps];
  __shared__ T s_wrow[2][kWarps][NB];
  __shared__ T s_diag[2][NB];
  __shared__ T s_grow[kLLMaxG + 1][NB];  // row g of block g; [G]: row j
  __shared__ int s_piv, s_pb;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int b = blockIdx.x, G = gridDim.x;
  T* A0 = A + k0 + k0 * lda;

  T a[R][NB];
  int li[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    li[r] = b * (kLeafThreads * R) + r * kLeafThreads + tid;
    const bool ok = li[r] < M;
#pragma unroll
    for (int c = 0; c < NB; ++c) a[r][c] = (ok && c < w) ? A0[li[r] + index_t(c) * lda] : T(0);
  }
  int my_info = 0;

#pragma unroll
  for (int j = 0; j < NB; ++j) {
    if (j >= w) break;
    const int p = j & 1;
    const unsigned tag = unsigned(k0 + j + 1);
    // 1. warp candidates
    T bv = T(-1);
    int bi = INT_MAX, bq = 0;
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (li[r] >= j && li[r] < M) better_i(bv, bi, bq, T(fabs(a[r][j])), li[r], 0);
    warp_best(bv, bi, bq);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (li[r] == bi) {
#pragma unroll
        for (int c = 0; c < NB; ++c) s_wrow[p][warp][c] = a[r][c];
      }
      if (li[r] == j) {
#pragma unroll
        for (int c = 0; c < NB; ++c) s_diag[p][c] = a[r][c];
      }
    }
    if (lane == 0) { s_wv[p][warp] = bv; s_wi[p][warp] = bi; }
    __syncthreads();
    // 2. the pivot row
    int piv;
    const T* u;
    const T* d;
    if (G == 1) {
      T v = T(-1);
      int i = INT_MAX, q = -1;
#pragma unroll
      for (int x = 0; x < kWarps; ++x) better_i(v, i, q, s_wv[p][x], s_wi[p][x], x);
      // All-NaN column (no comparable value): keep row j, like isamax.
      const bool ok = i >= j && i < M;
      piv = ok ? i : j;
      d = s_diag[p];
      u = ok ? s_wrow[p][q] : d;
    } else {
      if (warp == 0) {
        T v = lane < kWarps ? s_wv[p][lane] : T(-1);
        int i = lane < kWarps ? s_wi[p][lane] : INT_MAX, q = lane;
        warp_best(v, i, q);
        const bool ok = i != INT_MAX;
        unsigned long long* slot = ws.slots + (index_t(p) * kLLMaxG + b) * kSlot;
        if (lane < W) ll_store(slot + lane, ll_piece(v, lane), tag);
        if (lane == W) ll_store(slot + W, unsigned(i), tag);
        const T x = ok ? s_wrow[p][q][lane] : T(0);
#pragma unroll
        for (int h = 0; h < W; ++h) ll_store(slot + W + 1 + lane * W + h, ll_piece(x, h), tag);
        if (b == 0) {
#pragma unroll
          for (int h = 0; h < W; ++h)
            ll_store(ws.diag + (index_t(p) * NB + lane) * W + h, ll_piece(s_diag[p][lane], h), tag);
        }
        // the G block candidates: lane g polls block g's header
        v = T(-1);
        i = INT_MAX;
        q = lane;
        if (lane < G) {
          const unsigned long long* hs = ws.slots + (index_t(p) * kLLMaxG + lane) * kSlot;
          unsigned pc[W + 1];
#pragma unroll
          for (int h = 0; h <= W; ++h) {
            unsigned long long x2;
            do { x2 = ll_load(hs + h); } while (unsigned(x2 >> 32) != tag);
            pc[h] = unsigned(x2);
          }
          v = ll_value<T>(pc);
          i = int(pc[W]);
        }
        warp_best(v, i, q);
        if (lane == 0) {
          const bool okp = i >= j && i < M;
          s_piv = okp ? i : j;
          s_pb = okp ? q : G;
        }
      } else {
        // all candidate rows and row j at once
        const int t = tid - 32, total = (G + 1) * NB;
        unsigned long long buf[kPer][W];
        bool done = false;
        unsigned need = 0;
#pragma unroll
        for (int k = 0; k < kPer; ++k)
          if (t + k * kPollers < total) need |= 1u << k;
        while (!done) {
          done = true;
#pragma unroll
          for (int k = 0; k < kPer; ++k) {
            if (!(need >> k & 1u)) continue;
            const int e = t + k * kPollers, g = e / NB, c = e % NB;
            const unsigned long long* src =
                g < G ? ws.slots + (index_t(p) * kLLMaxG + g) * kSlot + W + 1 + c * W
                      : ws.diag + (index_t(p) * NB + c) * W;
            bool ok = true;
#pragma unroll
            for (int h = 0; h < W; ++h) {
              buf[k][h] = ll_load(src + h);
              ok = ok && unsigned(buf[k][h] >> 32) == tag;
            }
            if (ok) {
              unsigned pc[W];
#pragma unroll
              for (int h = 0; h < W; ++h) pc[h] = unsigned(buf[k][h]);
              s_grow[g][c] = ll_value<T>(pc);
              need &= ~(1u << k);
            } else {
              done = false;
            }
          }
        }
      }
      __syncthreads();
      piv = s_piv;
      d = s_grow[G];
      u = s_grow[s_pb];
    }
    // 3. swap rows j and piv, scale, rank-1 update
    const T pivval = u[j];
    if (b == 0 && tid == 0) {
      ipiv[k0 + j] = static_cast<std::int32_t>(k0 + piv + 1);
      if (pivval == T(0) && my_info == 0) my_info = j + 1;
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (li[r] == piv && piv != j) {
#pragma unroll
        for (int c = 0; c < NB; ++c) a[r][c] = d[c];
      }
      if (li[r] == j) {
#pragma unroll
        for (int c = 0; c < NB; ++c) a[r][c] = u[c];
      }
    }
    if (pivval != T(0)) {
      const T inv = T(1) / pivval;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (li[r] > j && li[r] < M) {
          const T l = a[r][j] * inv;
          a[r][j] = l;
#pragma unroll
          for (int c = j + 1; c < NB; ++c) a[r][c] -= l * u[c];
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (li[r] < M) {
#pragma unroll
      for (int c = 0; c < NB; ++c)
        if (c < w) A0[li[r] + index_t(c) * lda] = a[r][c];
    }
  }
  if (b == 0 && tid == 0 && my_info != 0 && *info == 0) *info = static_cast<int>(k0 + my_info);
}

template <class T, int R>
int ll_max_blocks() {
  static int cached[64] = {0};
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  int& c = cached[dev & 63];
  if (c == 0) {
    int per_sm = 0, sms = 0;
    DLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ll_leaf_kernel<T, R>,
                                                                 kLeafThreads, 0));
    DLA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    c = per_sm * sms;
  }
  return c;
}

template <class T, int R>
bool try_ll_leaf(stream_t s, index_t m, index_t k0, int w, T* A, index_t lda,
                 std::int32_t* ipiv, int* info, LLWs<T> lws) {
  const index_t M = m - k0;
  const index_t G = (M + kLeafThreads * R - 1) / (kLeafThreads * R);
  if (G > kLLMaxG || G > ll_max_blocks<T, R>()) return false;
  const int Mi = int(M);
  void* args[] = {(void*)&Mi, (void*)&k0, (void*)&w, (void*)&A, (void*)&lda,
                  (void*)&ipiv, (void*)&info, (void*)&lws};
  DLA_CUDA_CHECK(cudaLaunchCooperativeKernel((const void*)ll_leaf_kernel<T, R>,
                                             dim3(unsigned(G)), dim3(kLeafThreads), args, 0,
                                             reinterpret_cast<cudaStream_t>(s)));
  DLA_CUDA_CHECK_LAUNCH();
  return true;
}

// DLA_GETRF_LEAF=coop: always the grid-barrier leaf (A/B runs, tests).
bool coop_leaf_forced() {
  const char* e = std::getenv("DLA_GETRF_LEAF");
  return e && std::string(e) == "coop";
}

// The low-latency leaf with the fewest blocks its registers allow (float:
// up to 4 rows a thread, double: 2); false when the strip is too tall.
template <class T>
bool ll_leaf(stream_t s, index_t m, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv,
             int* info, LLWs<T> lws) {
  if (coop_leaf_forced()) return false;
  const index_t M = m - k0;
  if (M <= kLeafThreads) return try_ll_leaf<T, 1>(s, m, k0, w, A, lda, ipiv, info, lws);
  if constexpr (sizeof(T) == 4) {
    // (R = 2 spills for float; R = 4 does not)
    return try_ll_leaf<T, 4>(s, m, k0, w, A, lda, ipiv, info, lws);
  } else {
    return try_ll_leaf<T, 2>(s, m, k0, w, A, lda, ipiv, info, lws);
  }
}

template <class T, int R>
int max_coop_blocks() {
  static int cached[64] = {0};
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  int& c = cached[dev & 63];
  if (c == 0) {
    int per_sm = 0, sms = 0;
    DLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, leaf_kernel<T, kLeafCols, R>, kLeafThreads, 0));
    DLA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    c = per_sm * sms;
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
void leaf(stream_t s, index_t m, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv,
          int* info, void* ws_all) {
  char* base = static_cast<char*>(ws_all);
  LLWs<T> lws;
  lws.slots = reinterpret_cast<unsigned long long*>(base);
  lws.diag = reinterpret_cast<unsigned long long*>(
      base + align256(sizeof(unsigned long long) * 2 * kLLMaxG * ll_slot_words<T>()));
  if (ll_leaf<T>(s, m, k0, w, A, lda, ipiv, info, lws)) return;
  void* ws = base + ll_bytes<T>();
  if (try_leaf<T, 1>(s, m, k0, w, A, lda, ipiv, info, ws)) return;
  if (try_leaf<T, 2>(s, m, k0, w, A, lda, ipiv, info, ws)) return;
  if (try_leaf<T, 4>(s, m, k0, w, A, lda, ipiv, info, ws)) return;
  throw DeviceError("getrf: panel of " + std::to_string(m - k0) +
                    " rows exceeds what the cooperative leaf kernel keeps resident");
}

}  // namespace

template <class T>
std::size_t panel_workspace_bytes(index_t m) {
  const index_t G = max_blocks_needed(m > 0 ? m : 1);
  return ll_bytes<T>() + align256(sizeof(T) * 2 * G * kLeafCols) + align256(sizeof(T) * 2 * G) +
         align256(sizeof(T) * 2 * kLeafCols) + align256(sizeof(index_t) * 2 * G);
}

template <class T>
void panel_factor(stream_t s, index_t m, index_t k0, index_t w, T* A, index_t lda,
                  std::int32_t* ipiv, int* info, void* ws) {
  if (w <= 0 || m - k0 <= 0) return;
  if (w <= kLeafCols) return leaf<T>(s, m, k0, int(w), A, lda, ipiv, info, ws);
  // split at a multiple of the leaf width, about half way
  const index_t n1 = ((w / 2 + kLeafCols - 1) / kLeafCols) * kLeafCols;
  const index_t n2 = w - n1;
  panel_factor<T>(s, m, k0, n1, A, lda, ipiv, info, ws);
  const index_t k1 = k0 + n1;
  swap_rows<T>(s, A, lda, m, k1, n2, k0, k1, ipiv);
  trsm<T>(s, Side::Left, Uplo::Lower, Op::N, Diag::Unit, n1, n2, T(1), A + k0 + k0 * lda, lda,
          A + k0 + k1 * lda, lda);
  gemm<T>(s, Op::N, Op::N, m - k1, n2, n1, T(-1), A + k1 + k0 * lda, lda, A + k0 + k1 * lda, lda,
          T(1), A + k1 + k1 * lda, lda);
  panel_factor<T>(s, m, k1, n2, A, lda, ipiv, info, ws);
  swap_rows<T>(s, A, lda, m, k0, n1, k1, k0 + w, ipiv);
}

template std::size_t panel_workspace_bytes<float>(index_t);
template std::size_t panel_workspace_bytes<double>(index_t);
template void panel_factor<float>(stream_t, index_t, index_t, index_t, float*, index_t,
                                  std::int32_t*, int*, void*);
template void panel_factor<double>(stream_t, index_t, index_t, index_t, double*, index_t,
                                   std::int32_t*, int*, void*);

}  // namespace dla::cuda::detail
