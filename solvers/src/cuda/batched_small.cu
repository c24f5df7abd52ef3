// Register-resident batched kernels for 1 <= n <= 32 (getrf and gesv from
// n = 17: smaller orders go to the matrix-per-thread kernels of
// batched_tiny.cu).
//
// A group of G lanes (G = the power of two >= n, G <= 32) owns one matrix;
// 32 / G matrices share a warp. Lane r holds row r of its matrix in registers
// (G values, indexed at compile time: every loop over columns is unrolled over
// G and guarded by the runtime n). getrf never moves rows: each lane tracks the
// position `pos` its row has in the pivoted order (lazy row swaps), the pivot
// search is a shuffle reduction inside the group (first maximum in pivoted
// order, as LAPACK's isamax), and rows are written to their final position once
// at the end. Matrix data is read and written exactly once.
#include "batched_common.cuh"
#include "dla/core/cuda_check.hpp"

namespace dla::cuda::batched {
namespace {

constexpr int kThreads = 128;

constexpr int group_for(int n) { return n <= 2 ? 2 : n <= 4 ? 4 : n <= 8 ? 8 : n <= 16 ? 16 : 32; }

template <class T>
__device__ __forceinline__ T shfl(T v, int src, int width) {
  return __shfl_sync(0xffffffffu, v, src, width);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int m, int width) {
  return __shfl_xor_sync(0xffffffffu, v, m, width);
}

// ---------------------------------------------------------------- getrf
// Minimum resident blocks: caps the registers (64 FP32 / 128 FP64 per thread).
// Without it the compiler keeps all G row addresses live from the loads to the
// stores (178 registers for FP32 potrf G = 32: 2 blocks per SM instead of 8).
template <class T>
constexpr int min_blocks() { return sizeof(T) == 4 ? 8 : 4; }

// u[j0 .. G) = src[j0 .. G) with 16-byte shared-memory loads (VW elements
// each; j0 and the buffer are VW-aligned): the broadcast read of the pivot
// row (getrf) or column k of L (potrf) by every lane of a group.
template <class T, int G, int VW>
__device__ __forceinline__ void load_vectors(const T* src, int j0, T (&u)[G]) {
#pragma unroll
  for (int j = j0; j < G; j += VW) {
    if constexpr (VW == 4) {
      const float4 x = *reinterpret_cast<const float4*>(src + j);
      u[j] = x.x; u[j + 1] = x.y; u[j + 2] = x.z; u[j + 3] = x.w;
    } else {
      const double2 x = *reinterpret_cast<const double2*>(src + j);
      u[j] = x.x; u[j + 1] = x.y;
    }
  }
}

// u[0 .. VW) = src[0 .. VW), one 128-bit shared-memory load.
template <class T, int VW>
__device__ __forceinline__ void load_chunk(const T* src, T (&u)[VW]) {
  if constexpr (VW == 4) {
    const float4 x = *reinterpret_cast<const float4*>(src);
    u[0] = x.x; u[1] = x.y; u[2] = x.z; u[3] = x.w;
  } else {
    const double2 x = *reinterpret_cast<const double2*>(src);
    u[0] = x.x; u[1] = x.y;
  }
}

// Entry r of a lane's row (the diagonal when lane r holds row r): a chain of
// selects, since registers cannot be indexed at run time. Once per matrix.
template <class T, int G>
__device__ __forceinline__ T diagonal_of(const T (&a)[G], int r) {
  T d = T(1);
#pragma unroll
  for (int j = 0; j < G; ++j)
    if (j == r) d = a[j];
  return d;
}

// x = U^-1 L^-1 x for one right-hand side: lane r holds row r of the packed
// LU factors (a) and entry r of the (already permuted) vector; udiv divides
// by U(r, r) (a multiply by its reciprocal, computed once per matrix: the
// division was on the substitution's critical chain, once per column).
template <class T, int G>
__device__ __forceinline__ T lu_substitute(const T (&a)[G], const Divider<T>& udiv, T x, int r,
                                           int n) {
#pragma unroll
  for (int k = 0; k < G; ++k) {  // L y = P b, unit diagonal
    if (k >= n) break;
    const T xk = shfl(x, k, G);
    if (r > k) x -= a[k] * xk;
  }
#pragma unroll
  for (int k = G - 1; k >= 0; --k) {  // U x = y
    if (k < n) {
      if (r == k) x = udiv(x);
      const T xk = shfl(x, k, G);
      if (r < k) x -= a[k] * xk;
    }
  }
  return x;
}

// Solve = true: gesv in one pass (the factors stay in registers and are
// used for the nrhs solves right away; A is read once instead of twice).
template <class T, int G, bool Solve, class Loc, class LocB>
__global__ void __launch_bounds__(kThreads, min_blocks<T>())
getrf_reg_kernel(int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info, index_t count,
                 LocB B, index_t ldb, index_t nrhs) {
  constexpr int per_block = kThreads / G;
  constexpr int VW = 16 / int(sizeof(T));             // elements per 128-bit access
  constexpr bool kSmemRow = G * int(sizeof(T)) >= 32;  // row broadcast through shared memory
  __shared__ __align__(16) T srow[2][kSmemRow ? kThreads : 1];
  const int r = threadIdx.x % G;
  const int gbase = (threadIdx.x % 32) - r;  // first lane of the group in the warp
  constexpr unsigned gmask = G == 32 ? 0xffffffffu : ((1u << G) - 1u);
  for (index_t blk = blockIdx.x; blk * per_block < count; blk += gridDim.x) {
    const index_t b = blk * per_block + threadIdx.x / G;
    const bool active = b < count && r < n;
    T a[G];
    T* M = nullptr;
    if (active) {
      M = A(b);
      Walk<const T> w{opaque(M) + r, lda};  // A(r, 0), A(r, 1), ...
#pragma unroll
      for (int j = 0; j < G; ++j) {
        const T* q = w.next();
        a[j] = j < n ? *q : T(0);
      }
    } else {
#pragma unroll
      for (int j = 0; j < G; ++j) a[j] = T(0);
    }
    int pos = r;        // position of this lane's row in the pivoted order
    int my_ipiv = r + 1;
    int linfo = 0;
#pragma unroll
    for (int k = 0; k < G; ++k) {
      if (k >= n) break;
      // Pivot search among rows with pos >= k: (magnitude, position), and the
      // winner's lane w (exactly one lane of the group holds position p).
      int p = pos, w = 0;
      if constexpr (G == 32 && sizeof(T) == 4) {
        // Two warp reductions (REDUX) instead of 5 levels of shuffles plus
        // ballots: the key orders like pivot_magnitude (inactive 0 < NaN 1 <
        // |a| as unsigned bits + 2); the minimum of (position, lane) among the
        // lanes holding the largest key gives the pivot's position (first
        // maximum) and its lane at once. (For G <= 16, REDUX with one mask per
        // group measured slower than the shuffles on the H200: getrf n = 8
        // 0.026 -> 0.043 ms, n = 16 0.104 -> 0.131 ms for 100000 matrices.)
        const unsigned key = pivot_key(a[k], r < n && pos >= k);
        const unsigned best = warp_max(key);
        const unsigned who =
            __reduce_min_sync(~0u, key == best ? (unsigned(pos) << 5) | unsigned(r) : ~0u);
        p = int(who >> 5);
        w = int(who & 31u);
      } else {
        // The maximum by one shuffle + max per level; the lanes holding it by
        // a ballot. Exact ties (zero columns, repeated values) are rare: only
        // then a second reduction finds the first position among them (the
        // branch is warp-uniform, so the group-wide shuffles stay legal).
        const T v = (r < n && pos >= k) ? pivot_magnitude(a[k]) : T(-2);
        T m = v;
#pragma unroll
        for (int off = G / 2; off > 0; off /= 2) m = max(m, shfl_xor(m, off, G));
        const unsigned tied = (__ballot_sync(0xffffffffu, v == m) >> gbase) & gmask;
        if (__any_sync(0xffffffffu, (tied & (tied - 1)) != 0)) {
          p = v == m ? pos : 0x7fffffff;
#pragma unroll
          for (int off = G / 2; off > 0; off /= 2) p = min(p, shfl_xor(p, off, G));
          const unsigned owners = __ballot_sync(0xffffffffu, r < n && pos == p);
          w = __ffs((owners >> gbase) & gmask) - 1;
        } else {  // one lane holds the maximum: it is the winner
          w = __ffs(tied) - 1;
          p = shfl(pos, w, G);
        }
      }
      const T piv = shfl(a[k], w, G);
      if (r == k) my_ipiv = p + 1;
      // Lazy swap: the winner takes position k, the row at position k takes p.
      if (r == w) pos = k;
      else if (pos == k) pos = p;
      const bool nonzero = piv != T(0);
      if (!nonzero && linfo == 0) linfo = k + 1;
      // Rows still to be eliminated; the others (pivot rows so far) are final.
      // Columns >= n are zero padding, updated but never read or stored.
      const bool upd = nonzero && pos > k;
      const Divider<T> div(piv);  // LAPACK's scaling by 1/piv (batched_common.cuh)
      T l = T(0);
      if (upd) {
        l = div(a[k]);
        a[k] = l;
      }
      if constexpr (kSmemRow) {
        // The winner stores its row (128-bit stores), the group reads it back
        // with 128-bit broadcast loads. Two buffers alternate by k, so the
        // __syncwarp of step k+1 separates step k's reads from step k+2's writes.
        T* row = srow[k & 1] + (threadIdx.x - r);
        const int j0 = ((k + 1) / VW) * VW;
        if (r == w) {
#pragma unroll
          for (int j = j0; j < G; j += VW) {
            if constexpr (VW == 4)
              *reinterpret_cast<float4*>(row + j) = make_float4(a[j], a[j + 1], a[j + 2], a[j + 3]);
            else
              *reinterpret_cast<double2*>(row + j) = make_double2(a[j], a[j + 1]);
          }
        }
        __syncwarp();
        if (upd) {  // one branch around plain FMAs (per-element predicates cost 4 instructions each)
#pragma unroll
          for (int j = j0; j < G; j += VW) {  // a chunk at a time: fewer live registers
            T u[VW];
            load_chunk<T, VW>(row + j, u);
#pragma unroll
            for (int q = 0; q < VW; ++q)
              if (j + q > k) a[j + q] -= l * u[q];
          }
        }
      } else {
#pragma unroll
        for (int j = k + 1; j < G; ++j) {
          const T u = shfl(a[j], w, G);
          if (upd) a[j] -= l * u;
        }
      }
    }
    __syncwarp();  // the next matrix's step 0 reuses srow[0]
    if constexpr (Solve) {
      // Row at position q to lane q (lane r holds the row whose position is
      // r, as getrs_reg_kernel); b[r] belongs at position pos (P b).
      int src = r;
#pragma unroll
      for (int q = 0; q < G; ++q) {
        if (q >= n) break;
        const unsigned bal = (__ballot_sync(0xffffffffu, r < n && pos == q) >> gbase) & gmask;
        if (r == q) src = __ffs(bal) - 1;
      }
#pragma unroll
      for (int j = 0; j < G; ++j) a[j] = shfl(a[j], src, G);
      T* const X = b < count ? B(b) : nullptr;
      const Divider<T> udiv(diagonal_of(a, r));
      for (index_t c = 0; c < nrhs; ++c) {
        const T bx = active ? X[r + c * ldb] : T(0);
        const T x = lu_substitute<T, G>(a, udiv, shfl(bx, src, G), r, n);
        if (active) X[r + c * ldb] = x;
      }
      pos = r;
    }
    if (active) {
      Walk<T> w{opaque(M) + pos, lda};
#pragma unroll
      for (int j = 0; j < G; ++j) {
        T* q = w.next();
        if (j < n) *q = a[j];
      }
      ipiv[b * n + r] = my_ipiv;
      if (r == 0) info[b] = linfo;
    }
  }
}

// ---------------------------------------------------------------- getrs (op N)
template <class T, int G, class LocA, class LocB>
__global__ void __launch_bounds__(kThreads)
getrs_reg_kernel(int n, index_t nrhs, LocA A, index_t lda, const std::int32_t* ipiv, LocB B,
                 index_t ldb, index_t count) {
  constexpr int per_block = kThreads / G;
  const int r = threadIdx.x % G;
  for (index_t blk = blockIdx.x; blk * per_block < count; blk += gridDim.x) {
    const index_t b = blk * per_block + threadIdx.x / G;
    const bool active = b < count && r < n;
    T a[G];
    int myp = r;
    T* X = nullptr;
    if (active) {
      const T* M = A(b);
      X = B(b);
      Walk<const T> w{opaque(M) + r, lda};
#pragma unroll
      for (int j = 0; j < G; ++j) {
        const T* q = w.next();
        a[j] = j < n ? *q : T(0);
      }
      myp = ipiv[b * n + r] - 1;
    } else {
#pragma unroll
      for (int j = 0; j < G; ++j) a[j] = T(0);
    }
    // orig: which original row of B ends up at position r after the swaps.
    int orig = r;
#pragma unroll
    for (int k = 0; k < G; ++k) {
      if (k >= n) break;
      const int pk = shfl(myp, k, G);
      const int src = r == k ? pk : (r == pk ? k : r);
      orig = shfl(orig, src, G);
    }
    const Divider<T> udiv(diagonal_of(a, r));
    for (index_t c = 0; c < nrhs; ++c) {
      const T x = lu_substitute<T, G>(a, udiv, active ? X[orig + c * ldb] : T(0), r, n);
      __syncwarp();
      if (active) X[r + c * ldb] = x;
    }
  }
}

// ---------------------------------------------------------------- potrf
// Lane r holds row r of L (lower: A(r, j); upper: A(j, r) = U(j, r) = L(r, j)).
template <class T, int G, bool Upper, class Loc>
__global__ void __launch_bounds__(kThreads, min_blocks<T>())
potrf_reg_kernel(int n, Loc A, index_t lda, std::int32_t* info, index_t count) {
  constexpr int per_block = kThreads / G;
  constexpr int VW = 16 / int(sizeof(T));
  constexpr bool kSmemCol = G * int(sizeof(T)) >= 32;
  __shared__ __align__(16) T scol[2][kSmemCol ? kThreads : 1];
  const int r = threadIdx.x % G;
  for (index_t blk = blockIdx.x; blk * per_block < count; blk += gridDim.x) {
    const index_t b = blk * per_block + threadIdx.x / G;
    const bool active = b < count && r < n;
    T a[G];
    T* M = nullptr;
    if (active) M = A(b);
    // Lower: A(r, 0), A(r, 1), ...; upper: A(0, r), A(1, r), ... (column r).
    Walk<const T> w = Upper ? Walk<const T>{opaque(M) + index_t(r) * lda, 1}
                            : Walk<const T>{opaque(M) + r, lda};
#pragma unroll
    for (int j = 0; j < G; ++j) {
      const T* q = w.next();
      a[j] = (active && j <= r) ? *q : T(0);
    }
    int linfo = 0;
#pragma unroll
    for (int k = 0; k < G; ++k) {
      if (k >= n) break;
      const T d = shfl(a[k], k, G);
      const bool ok = linfo == 0 && d > T(0);  // uniform in the group; false for NaN
      if (linfo == 0 && !ok) linfo = k + 1;
      // Entries right of the diagonal (j > r) are not part of L: every lane
      // updates all columns > k without per-element conditions, and those
      // entries are never read or stored.
      if (ok) {
        const T s = sqrt(d);
        a[k] = r == k ? s : a[k] * (T(1) / s);  // reciprocal scaling, as LAPACK's potf2
      }
      if constexpr (kSmemCol) {
        // Column k of L through shared memory: every lane stores its L(r, k),
        // then reads L(k+1.., k) with 128-bit broadcast loads (buffers
        // alternate by k, as in getrf).
        T* col = scol[k & 1] + (threadIdx.x - r);
        col[r] = a[k];
        __syncwarp();
        const int j0 = ((k + 1) / VW) * VW;
        T u[G];
        load_vectors<T, G, VW>(col, j0, u);
        if (ok) {
#pragma unroll
          for (int j = k + 1; j < G; ++j) a[j] -= a[k] * u[j];
        }
      } else {
#pragma unroll
        for (int j = k + 1; j < G; ++j) {
          const T ljk = shfl(a[k], j, G);
          if (ok) a[j] -= a[k] * ljk;
        }
      }
    }
    __syncwarp();  // the next matrix's step 0 reuses scol[0]
    if (active) {
      Walk<T> w = Upper ? Walk<T>{opaque(M) + index_t(r) * lda, 1} : Walk<T>{opaque(M) + r, lda};
#pragma unroll
      for (int j = 0; j < G; ++j) {
        T* q = w.next();
        if (j <= r && j < n) *q = a[j];
      }
      if (r == 0) info[b] = linfo;
    }
  }
}

// ---------------------------------------------------------------- potrs
// Lane r holds row r of L (R) and column r of L (C).
template <class T, int G, bool Upper, class LocA, class LocB>
__global__ void __launch_bounds__(kThreads)
potrs_reg_kernel(int n, index_t nrhs, LocA A, index_t lda, LocB B, index_t ldb, index_t count) {
  constexpr int per_block = kThreads / G;
  const int r = threadIdx.x % G;
  for (index_t blk = blockIdx.x; blk * per_block < count; blk += gridDim.x) {
    const index_t b = blk * per_block + threadIdx.x / G;
    const bool active = b < count && r < n;
    T R[G], C[G];
    T* X = nullptr;
    const T* M = nullptr;
    if (active) { M = A(b); X = B(b); }
#pragma unroll
    for (int j = 0; j < G; ++j) {
      R[j] = T(0);
      C[j] = T(0);
      if (active && j < n) {
        const T rowv = M[r + index_t(j) * lda];  // A(r, j)
        const T colv = M[j + index_t(r) * lda];  // A(j, r)
        if (j <= r) R[j] = Upper ? colv : rowv;  // L(r, j)
        if (j >= r) C[j] = Upper ? rowv : colv;  // L(j, r)
      }
    }
    const Divider<T> ldiv(diagonal_of(R, r));  // L(r, r) = R[r] = C[r]
    for (index_t c = 0; c < nrhs; ++c) {
      T x = active ? X[r + c * ldb] : T(0);
#pragma unroll
      for (int k = 0; k < G; ++k) {  // L y = b
        if (k >= n) break;
        if (r == k) x = ldiv(x);
        const T xk = shfl(x, k, G);
        if (r > k) x -= R[k] * xk;
      }
#pragma unroll
      for (int k = G - 1; k >= 0; --k) {  // L^T x = y
        if (k < n) {
          if (r == k) x = ldiv(x);
          const T xk = shfl(x, k, G);
          if (r < k) x -= C[k] * xk;
        }
      }
      if (active) X[r + c * ldb] = x;
    }
  }
}

template <int G>
unsigned blocks(index_t count) { return grid_for(count, kThreads / G); }

}  // namespace

template <class T, class Loc>
void getrf_small(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                 index_t count) {
  if (n <= kTinyMaxN) return getrf_tiny<T>(s, n, A, lda, ipiv, info, count);
  switch (group_for(n)) {
#define DLA_CASE(G)                                                                              \
  case G:                                                                                        \
    getrf_reg_kernel<T, G, false><<<blocks<G>(count), kThreads, 0, s>>>(n, A, lda, ipiv, info,   \
                                                                        count, NoRhs{}, 0, 0);   \
    break;
    DLA_CASE(32)  // n <= kTinyMaxN: getrf_tiny
#undef DLA_CASE
  }
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T>
void gesv_small(stream_t s, int n, index_t nrhs, Strided<T> A, index_t lda, std::int32_t* ipiv,
                Strided<T> B, index_t ldb, std::int32_t* info, index_t count) {
  if (n <= kTinyMaxN) return gesv_tiny<T>(s, n, nrhs, A, lda, ipiv, B, ldb, info, count);
  switch (group_for(n)) {
#define DLA_CASE(G)                                                                              \
  case G:                                                                                        \
    getrf_reg_kernel<T, G, true><<<blocks<G>(count), kThreads, 0, s>>>(n, A, lda, ipiv, info,    \
                                                                       count, B, ldb, nrhs);     \
    break;
    DLA_CASE(32)  // n <= kTinyMaxN: getrf_tiny
#undef DLA_CASE
  }
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class LocA, class LocB>
void getrs_small(stream_t s, int n, index_t nrhs, LocA A, index_t lda, const std::int32_t* ipiv,
                 LocB B, index_t ldb, index_t count) {
  switch (group_for(n)) {
#define DLA_CASE(G)                                                                      \
  case G:                                                                                \
    getrs_reg_kernel<T, G><<<blocks<G>(count), kThreads, 0, s>>>(n, nrhs, A, lda, ipiv, B, \
                                                                 ldb, count);            \
    break;
    DLA_CASE(2) DLA_CASE(4) DLA_CASE(8) DLA_CASE(16) DLA_CASE(32)
#undef DLA_CASE
  }
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class Loc>
void potrf_small(stream_t s, bool upper, int n, Loc A, index_t lda, std::int32_t* info,
                 index_t count) {
  switch (group_for(n)) {
#define DLA_CASE(G)                                                                            \
  case G:                                                                                      \
    if (upper) potrf_reg_kernel<T, G, true><<<blocks<G>(count), kThreads, 0, s>>>(n, A, lda, info, count); \
    else potrf_reg_kernel<T, G, false><<<blocks<G>(count), kThreads, 0, s>>>(n, A, lda, info, count);      \
    break;
    DLA_CASE(2) DLA_CASE(4) DLA_CASE(8) DLA_CASE(16) DLA_CASE(32)
#undef DLA_CASE
  }
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class LocA, class LocB>
void potrs_small(stream_t s, bool upper, int n, index_t nrhs, LocA A, index_t lda, LocB B,
                 index_t ldb, index_t count) {
  switch (group_for(n)) {
#define DLA_CASE(G)                                                                                      \
  case G:                                                                                                \
    if (upper) potrs_reg_kernel<T, G, true><<<blocks<G>(count), kThreads, 0, s>>>(n, nrhs, A, lda, B, ldb, count); \
    else potrs_reg_kernel<T, G, false><<<blocks<G>(count), kThreads, 0, s>>>(n, nrhs, A, lda, B, ldb, count);      \
    break;
    DLA_CASE(2) DLA_CASE(4) DLA_CASE(8) DLA_CASE(16) DLA_CASE(32)
#undef DLA_CASE
  }
  DLA_CUDA_CHECK_LAUNCH();
}

#define DLA_INST(T)                                                                              \
  template void gesv_small<T>(stream_t, int, index_t, Strided<T>, index_t, std::int32_t*,        \
                             Strided<T>, index_t, std::int32_t*, index_t);                       \
  template void getrf_small<T, Strided<T>>(stream_t, int, Strided<T>, index_t, std::int32_t*,    \
                                           std::int32_t*, index_t);                              \
  template void getrf_small<T, PtrArray<T>>(stream_t, int, PtrArray<T>, index_t, std::int32_t*,  \
                                            std::int32_t*, index_t);                             \
  template void getrs_small<T, Strided<const T>, Strided<T>>(                                    \
      stream_t, int, index_t, Strided<const T>, index_t, const std::int32_t*, Strided<T>,        \
      index_t, index_t);                                                                         \
  template void getrs_small<T, PtrArray<const T>, PtrArray<T>>(                                  \
      stream_t, int, index_t, PtrArray<const T>, index_t, const std::int32_t*, PtrArray<T>,      \
      index_t, index_t);                                                                         \
  template void potrf_small<T, Strided<T>>(stream_t, bool, int, Strided<T>, index_t,             \
                                           std::int32_t*, index_t);                              \
  template void potrf_small<T, PtrArray<T>>(stream_t, bool, int, PtrArray<T>, index_t,           \
                                            std::int32_t*, index_t);                             \
  template void potrs_small<T, Strided<const T>, Strided<T>>(                                    \
      stream_t, bool, int, index_t, Strided<const T>, index_t, Strided<T>, index_t, index_t);    \
  template void potrs_small<T, PtrArray<const T>, PtrArray<T>>(                                  \
      stream_t, bool, int, index_t, PtrArray<const T>, index_t, PtrArray<T>, index_t, index_t);
DLA_INST(float)
DLA_INST(double)
#undef DLA_INST

}  // namespace dla::cuda::batched
