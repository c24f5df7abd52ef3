// Batched LU (getrf, and gesv fused) for 1 <= n <= kTinyMaxN (16), a whole
// matrix in the registers of one thread (n <= 8) or of P = 2 or 4 threads
// (9 <= n <= 16; thread t of a matrix holds columns t, t + P, t + 2P, ...).
//
// N is a template parameter, so every register index is a compile-time
// constant and every loop is unrolled. Rows are swapped for real (selects on
// the runtime pivot row): the pivot search runs over the compile-time
// candidate rows k..N-1 (a chain of compares, with P > 1 a tree; ties keep
// the lower row, so the result is the first maximum, as LAPACK's isamax) and
// the factors end in place. With P > 1 the thread that holds column k
// searches it, and one shuffle each sends the pivot's row index, the pivot
// and each multiplier to the other P - 1 threads of the matrix, which swap
// and update their own columns. A block stages its tile of matrices through shared memory so that
// global reads and writes are coalesced: 16-byte cp.async when the batch is
// one contiguous array (lda == n, stride == n * n, 16-byte aligned), element
// copies otherwise (any lda and stride, pointer arrays).
//
// Why not the lane-per-row kernel of batched_small.cu: per step it spends a
// shuffle reduction, ballots and per-lane predicates on every row, ~120 warp
// instructions per 8 x 8 matrix and ~580 per 16 x 16 (instruction-issue
// bound, 2.3x and 2.8x cuBLAS); here the search is a chain of compares in one
// thread (docs/batched.md). A first split for 9 <= n <= 16 (four threads per
// matrix, session 13) was slower than the lane kernel (0.105 vs 0.092 ms at
// n = 16); this one keeps 128 registers of matrix per thread (FP32: P = 2).
#include "batched_common.cuh"
#include "dla/core/cuda_check.hpp"
#include "smem_vec.cuh"

namespace dla::cuda::batched {
namespace {

// Shared-memory layout of a tile: matrix m at m * S, column-major with leading
// dimension N. S avoids bank conflicts when each thread reads its own matrix:
// with 16-byte column reads (pieces of 4 elements: N a multiple of 4) S / VW
// is odd, VW the elements per 16 bytes, so 8 consecutive threads hit 8
// different 16-byte bank groups; with scalar reads S is odd. Either S == N *
// N (the tile is the global array's image) or N * N is a multiple of VW
// (16-byte pieces never straddle two matrices).
template <class T, int N>
struct TinyLayout {
  static constexpr int NN = N * N;
  static constexpr int VW = 16 / int(sizeof(T));
  static constexpr bool kVecCols = N % 4 == 0;
  static constexpr int S = kVecCols ? ((NN / VW) % 2 ? NN : NN + VW) : (NN % 2 ? NN : NN + 1);
  static_assert(S == NN || NN % VW == 0, "16-byte pieces must not straddle matrices");
  // 16-byte copies land on 16-byte boundaries of the tile.
  static constexpr bool kPieces = S == NN || S % VW == 0;
  // Tile offset of element q of a run of whole matrices (q = m * NN + e).
  static __device__ __forceinline__ int at(int q) { return S == NN ? q : (q / NN) * S + q % NN; }
};

// Tile <- the cnt matrices starting at b0, by cp.async: complete after
// detail::cp_async_wait_all() (and a barrier). Contiguous: one run of cnt * N * N
// elements, 16-byte aligned (b0 is a multiple of the tile's 16, 32 or 64
// matrices), copied by 16-byte pieces where the layout keeps them aligned
// (kPieces); every other case element by element (still coalesced when
// lda == n).
template <class T, int N, int kThreads, class Loc>
__device__ __forceinline__ void tile_load_async(T* tile, Loc A, index_t b0, index_t lda, int cnt,
                                                bool contiguous) {
  using L = TinyLayout<T, N>;
  const int total = cnt * L::NN;
  if (L::kPieces && contiguous) {
    const T* src = A(b0);
    const int pieces = total / L::VW;
    for (int g = threadIdx.x; g < pieces; g += kThreads)
      detail::cp_async_16(tile + L::at(g * L::VW), src + g * L::VW);
    for (int q = pieces * L::VW + threadIdx.x; q < total; q += kThreads)
      detail::cp_async_elem(tile + L::at(q), src + q);
  } else {
    for (int q = threadIdx.x; q < total; q += kThreads) {
      const int m = q / L::NN, e = q % L::NN;
      detail::cp_async_elem(tile + m * L::S + e, A(b0 + m) + (e % N) + index_t(e / N) * lda);
    }
  }
}

// The cnt matrices starting at b0 <- tile.
template <class T, int N, int kThreads, class Loc>
__device__ __forceinline__ void tile_store(const T* tile, Loc A, index_t b0, index_t lda, int cnt,
                                           bool contiguous) {
  using L = TinyLayout<T, N>;
  const int total = cnt * L::NN;
  if (L::kPieces && contiguous) {
    T* dst = A(b0);
    const int pieces = total / L::VW;
    for (int g = threadIdx.x; g < pieces; g += kThreads)
      *reinterpret_cast<uint4*>(dst + g * L::VW) = *reinterpret_cast<const uint4*>(tile + L::at(g * L::VW));
    for (int q = pieces * L::VW + threadIdx.x; q < total; q += kThreads)
      dst[q] = tile[L::at(q)];
  } else {
    for (int q = threadIdx.x; q < total; q += kThreads) {
      const int m = q / L::NN, e = q % L::NN;
      A(b0 + m)[(e % N) + index_t(e / N) * lda] = tile[m * L::S + e];
    }
  }
}

// Threads per block. A tile holds kTinyThreads / P matrices (64, 32 or 16:
// multiples of 16, so the 16-byte pieces of a contiguous batch stay aligned
// from tile to tile).
constexpr int kTinyThreads = 64;

// Threads per matrix: 1 up to n = 8 (at most 64 values, FP64 128 registers);
// above, the fewest (2 or 4) that keep a thread's share of the matrix at
// <= 128 32-bit registers (FP32 n = 16: 16 rows x 8 columns).
template <class T, int N>
constexpr int tiny_threads() {
  if (N <= 8) return 1;
  return N * ((N + 1) / 2) * (int(sizeof(T)) / 4) <= 128 ? 2 : 4;
}

// a <- thread t's columns of its matrix in the tile (Store = false), or the
// tile <- a. a[i][c] is column j = c * P + t, row i; the tile is column-major
// (leading dimension N): 16-byte pieces of a column go through a small array.
// Columns j >= N (padding when P does not divide N) are zero, never stored.
template <class T, int N, int P, bool Store>
__device__ __forceinline__ void tile_matrix(T* mine, T (&a)[N][(N + P - 1) / P], int t) {
  using L = TinyLayout<T, N>;
  constexpr int C = (N + P - 1) / P;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const int j = c * P + t;
    if (c < C - 1 || j < N) {  // only the last column can be padding
      T* col = mine + j * N;
      if constexpr (L::kVecCols) {
#pragma unroll
        for (int i = 0; i < N; i += 4) {
          T v[4];
          if constexpr (Store) {
#pragma unroll
            for (int q = 0; q < 4; ++q) v[q] = a[i + q][c];
            detail::store4_aligned(col + i, v);
          } else {
            detail::load4_aligned(col + i, v);
#pragma unroll
            for (int q = 0; q < 4; ++q) a[i + q][c] = v[q];
          }
        }
      } else {
#pragma unroll
        for (int i = 0; i < N; ++i) {
          if constexpr (Store) col[i] = a[i][c];
          else a[i][c] = col[i];
        }
      }
    } else if constexpr (!Store) {
#pragma unroll
      for (int i = 0; i < N; ++i) a[i][c] = T(0);
    }
  }
}

// v from the thread of the matrix that holds column k (thread tk of P).
template <int P, class T>
__device__ __forceinline__ T from_owner(T v, int tk) {
  if constexpr (P == 1) return v;
  else return __shfl_sync(0xffffffffu, v, tk, P);
}

// The LU factorization with partial pivoting of the matrix whose columns
// t, t + P, ... this thread holds in a (all P threads of the matrix call it
// together), LAPACK xGETF2 semantics: pivs[k] = 1-based pivot row of step k
// (written by thread 0), returns info = first zero pivot (1-based) or 0.
template <class T, int N, int P>
__device__ __forceinline__ int lu_columns(T (&a)[N][(N + P - 1) / P], std::int32_t* pivs, int t) {
  constexpr int C = (N + P - 1) / P;
  int info = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int ck = k / P, tk = k % P;  // column k is register column ck of thread tk
    // Pivot: the first row i >= k of largest magnitude (NaN ranks lowest).
    int pk = k;
    if constexpr (P == 1) {
      // A chain of compares: the first strictly larger magnitude wins.
      T best = pivot_magnitude(a[k][ck]);
#pragma unroll
      for (int i = k + 1; i < N; ++i) {
        const T v = pivot_magnitude(a[i][ck]);
        if (v > best) {
          best = v;
          pk = i;
        }
      }
    } else {
      // A tree of compares (depth log2(N - k), for the longer columns): a
      // pair takes its right half only when that is strictly larger, so ties
      // keep the lower row. Threads other than tk search a column of their
      // own, unused.
      T v[N];
      int id[N];
#pragma unroll
      for (int i = k; i < N; ++i) {
        v[i] = pivot_magnitude(a[i][ck]);
        id[i] = i;
      }
#pragma unroll
      for (int lvl = 0; lvl < 5; ++lvl) {  // s = 1 << lvl: a counted loop, so it unrolls
        const int s = 1 << lvl;
#pragma unroll
        for (int i = k; i + s < N; i += 2 * s) {
          const bool right = v[i + s] > v[i];
          v[i] = right ? v[i + s] : v[i];
          id[i] = right ? id[i + s] : id[i];
        }
      }
      pk = id[k];
    }
    const int p = from_owner<P>(pk, tk);
    if (t == 0) pivs[k] = p + 1;
    // Swap rows k and p: p is a runtime value, so a select per candidate row.
    // (A tree of selects on the bits of p - k, for a shorter dependency
    // chain, measured 3% faster at n = 16 in a variant with 255 registers but
    // needs more of them: 68 instead of 24 bytes of spill at 168.)
#pragma unroll
    for (int i = k + 1; i < N; ++i) {
      const bool s = p == i;
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const T x = a[i][c];
        a[i][c] = s ? a[k][c] : x;
        a[k][c] = s ? x : a[k][c];
      }
    }
    const T pv = from_owner<P>(a[k][ck], tk);
    if (pv == T(0) && info == 0) info = k + 1;
    // Multipliers a(i, k) / pv (by 1/pv where that is exact: Divider; one
    // branch per step, not per element), computed by thread tk and sent to
    // the others. The shuffles stay outside every branch: a zero pivot in
    // one matrix must not leave its neighbours in the warp waiting.
    const Divider<T> d(pv);
    T l[N];
    if (d.fast) {
#pragma unroll
      for (int i = k + 1; i < N; ++i) l[i] = a[i][ck] * d.inv;
    } else {
#pragma unroll
      for (int i = k + 1; i < N; ++i) l[i] = a[i][ck] / pv;
    }
#pragma unroll
    for (int i = k + 1; i < N; ++i) l[i] = from_owner<P>(l[i], tk);
    if (pv != T(0)) {  // LAPACK: a zero pivot gets no scaling and no update
      // Register column ck is column k on thread tk (it takes the
      // multipliers), column ck*P + t > k on threads t > tk (updated), an
      // earlier, finished column on threads t < tk.
#pragma unroll
      for (int i = k + 1; i < N; ++i) {
        if (t == tk) a[i][ck] = l[i];
        else if (t > tk) a[i][ck] -= l[i] * a[k][ck];
      }
#pragma unroll
      for (int c = ck + 1; c < C; ++c)
#pragma unroll
        for (int i = k + 1; i < N; ++i) a[i][c] -= l[i] * a[k][c];
    }
  }
  return info;
}

// x <- A^-1 x from the factors in the tile (F, leading dimension N) and the
// 1-based pivots of lu_columns.
template <class T, int N>
__device__ __forceinline__ void lu_solve_tile(const T* F, const std::int32_t* pivs, T (&x)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) {  // P b, the interchanges in order
    const int p = pivs[k] - 1;
#pragma unroll
    for (int i = k + 1; i < N; ++i) {
      const bool s = p == i;
      const T t = x[i];
      x[i] = s ? x[k] : t;
      x[k] = s ? t : x[k];
    }
  }
#pragma unroll
  for (int k = 0; k < N; ++k)  // L y = P b, unit diagonal
#pragma unroll
    for (int i = k + 1; i < N; ++i) x[i] -= F[i + k * N] * x[k];
#pragma unroll
  for (int k = N - 1; k >= 0; --k) {  // U x = y
    x[k] = Divider<T>(F[k + k * N])(x[k]);
#pragma unroll
    for (int i = 0; i < k; ++i) x[i] -= F[i + k * N] * x[k];
  }
}

// Minimum resident blocks per SM (the register cap for ptxas): with P > 1 in
// FP32, 6 blocks (168 registers; FP32 n = 16 spills 24 bytes) instead of the
// 4 that 255 registers allow. Measured on the H200, getrf 100000 x 16^2:
// 0.0865 against 0.088-0.090 ms (docs/batched.md, session 14).
template <class T, int N>
constexpr int tiny_min_blocks() { return tiny_threads<T, N>() > 1 && sizeof(T) == 4 ? 6 : 1; }

// A block loads its tile of M matrices (cp.async), every thread factors its
// share of one matrix in registers, writes the factors back to the tile
// (gesv solves from there), and the block stores the tile. (Session 14 also
// tried a second tile so that the next tile's loads overlap the
// factorization, with a grid of resident blocks: slower, 0.107-0.110 against
// 0.088 ms at n = 16, with 3 instead of 4 blocks per SM.)
template <class T, int N, bool Solve, class Loc, class LocB>
__global__ void __launch_bounds__(kTinyThreads, tiny_min_blocks<T, N>())
getrf_tiny_kernel(Loc A, index_t lda, bool contiguous, std::int32_t* ipiv, std::int32_t* info,
                  index_t count, LocB B, index_t ldb, index_t nrhs) {
  using L = TinyLayout<T, N>;
  constexpr int P = tiny_threads<T, N>(), M = kTinyThreads / P, C = (N + P - 1) / P;
  __shared__ __align__(16) T tile[M * L::S];
  __shared__ std::int32_t piv_tile[M * N];
  const int m = threadIdx.x / P;  // the thread's matrix in the tile
  const int t = threadIdx.x % P;  // and its share of the columns
  T* const mine = tile + m * L::S;
  std::int32_t* const pivs = piv_tile + m * N;
  for (index_t b0 = index_t(blockIdx.x) * M; b0 < count; b0 += index_t(gridDim.x) * M) {
    const int cnt = int(count - b0 < M ? count - b0 : M);
    const bool live = m < cnt;
    tile_load_async<T, N, kTinyThreads>(tile, A, b0, lda, cnt, contiguous);
    detail::cp_async_wait_all();
    __syncthreads();
    // Every thread factors (the P threads of a matrix meet in shuffles, so
    // none may sit out); past the last matrix they factor zeros and store
    // nothing.
    T a[N][C];
    if (live) {
      tile_matrix<T, N, P, false>(mine, a, t);
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i)
#pragma unroll
        for (int c = 0; c < C; ++c) a[i][c] = T(0);
    }
    const int linfo = lu_columns<T, N, P>(a, pivs, t);
    if (live) {
      tile_matrix<T, N, P, true>(mine, a, t);
      if (t == 0) info[b0 + m] = linfo;
    }
    if constexpr (Solve) {
      __syncwarp();  // the P threads' columns and thread 0's pivots are in the tile
      if (live) {
        T* const X = B(b0 + m);
        for (index_t c = t; c < nrhs; c += P) {
          T x[N];
#pragma unroll
          for (int i = 0; i < N; ++i) x[i] = X[i + c * ldb];
          // opaque: otherwise the compiler hoists the factor's loads out of
          // the loop over right-hand sides and holds all N * N in registers.
          lu_solve_tile<T, N>(opaque(mine), pivs, x);
#pragma unroll
          for (int i = 0; i < N; ++i) X[i + c * ldb] = x[i];
        }
      }
    }
    __syncthreads();
    tile_store<T, N, kTinyThreads>(tile, A, b0, lda, cnt, contiguous);
    for (int q = threadIdx.x; q < cnt * N; q += kTinyThreads) ipiv[b0 * N + q] = piv_tile[q];
    __syncthreads();  // the next tile's loads overwrite tile and piv_tile
  }
}

// One contiguous array: every matrix n x n with lda == n, one after another.
template <class T>
bool contiguous_batch(Strided<T> A, int n, index_t lda, index_t count) {
  return lda == n && (count == 1 || A.stride == index_t(n) * n) &&
         reinterpret_cast<std::uintptr_t>(A.base) % 16 == 0;
}
template <class T>
bool contiguous_batch(PtrArray<T>, int, index_t, index_t) { return false; }

template <class T, bool Solve, class Loc, class LocB>
void launch_tiny(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                 index_t count, LocB B, index_t ldb, index_t nrhs) {
  const bool contig = contiguous_batch(A, n, lda, count);
#define DLA_CASE(N)                                                                   \
  case N:                                                                             \
    getrf_tiny_kernel<T, N, Solve>                                                    \
        <<<grid_for(count, kTinyThreads / tiny_threads<T, N>()), kTinyThreads, 0, s>>>( \
            A, lda, contig, ipiv, info, count, B, ldb, nrhs);                         \
    break;
  switch (n) {
    DLA_CASE(1) DLA_CASE(2) DLA_CASE(3) DLA_CASE(4) DLA_CASE(5) DLA_CASE(6) DLA_CASE(7) DLA_CASE(8)
    DLA_CASE(9) DLA_CASE(10) DLA_CASE(11) DLA_CASE(12) DLA_CASE(13) DLA_CASE(14) DLA_CASE(15)
    DLA_CASE(16)
  }
#undef DLA_CASE
  DLA_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T, class Loc>
void getrf_tiny(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                index_t count) {
  launch_tiny<T, false>(s, n, A, lda, ipiv, info, count, NoRhs{}, 0, 0);
}

template <class T>
void gesv_tiny(stream_t s, int n, index_t nrhs, Strided<T> A, index_t lda, std::int32_t* ipiv,
               Strided<T> B, index_t ldb, std::int32_t* info, index_t count) {
  launch_tiny<T, true>(s, n, A, lda, ipiv, info, count, B, ldb, nrhs);
}

#define DLA_INST(T)                                                                            \
  template void getrf_tiny<T, Strided<T>>(stream_t, int, Strided<T>, index_t, std::int32_t*,   \
                                          std::int32_t*, index_t);                             \
  template void getrf_tiny<T, PtrArray<T>>(stream_t, int, PtrArray<T>, index_t, std::int32_t*, \
                                           std::int32_t*, index_t);                            \
  template void gesv_tiny<T>(stream_t, int, index_t, Strided<T>, index_t, std::int32_t*,       \
                             Strided<T>, index_t, std::int32_t*, index_t);
DLA_INST(float)
DLA_INST(double)
#undef DLA_INST

}  // namespace dla::cuda::batched
