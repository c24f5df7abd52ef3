// Batched LU (getrf, and gesv fused) for 1 <= n <= kTinyMaxN (8), a whole
// matrix in the registers of one thread.
//
// N is a template parameter, so every register index is a compile-time
// constant and every loop is unrolled. Rows are swapped for real (selects on
// the runtime pivot row): the pivot search runs over the compile-time
// candidate rows k..N-1 (the first maximum is the first strictly larger
// magnitude, as LAPACK's isamax) and the factors end in place. A block
// stages its tile of matrices through shared memory so that global reads and
// writes are coalesced: 16-byte cp.async when the batch is one contiguous
// array (lda == n, stride == n * n, 16-byte aligned), element copies
// otherwise (any lda and stride, pointer arrays).
//
// Why not the lane-per-row kernel of batched_small.cu: per step it spends a
// shuffle reduction, ballots and per-lane predicates on every row, ~120 warp
// instructions per 8 x 8 matrix and ~580 per 16 x 16 (instruction-issue
// bound, 2.3x and 2.8x cuBLAS); here the search is a chain of compares in one
// thread (docs/batched.md). For 9 <= n <= 16 a variant with four threads per
// matrix (a quarter of the columns each, pivot row and multipliers sent by
// shuffles) was slower than the lane-per-row kernel (0.105 vs 0.092 ms at n =
// 16), so those sizes stay there.
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

// Tile <- the cnt matrices starting at b0. Contiguous: one run of cnt * N * N
// elements, 16-byte aligned (b0 is a multiple of kTileMatrices = 64), copied by
// 16-byte pieces where the layout keeps them aligned (kPieces); every other
// case element by element (still coalesced when lda == n).
template <class T, int N, int kThreads, class Loc>
__device__ __forceinline__ void tile_load(T* tile, Loc A, index_t b0, index_t lda, int cnt,
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
  detail::cp_async_wait_all();
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

// Matrices per tile, one thread each (a multiple of 16: the 16-byte pieces of
// a contiguous batch stay aligned from tile to tile).
constexpr int kTileMatrices = 64;

// a <- the thread's matrix in the tile (Store = false), or the tile <- a. a
// is row-major in registers, the tile column-major: 16-byte pieces of a
// column go through a small array.
template <class T, int N, bool Store>
__device__ __forceinline__ void tile_matrix(T* mine, T (&a)[N][N]) {
  using L = TinyLayout<T, N>;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    T* col = mine + j * N;
    if constexpr (L::kVecCols) {
#pragma unroll
      for (int i = 0; i < N; i += 4) {
        T v[4];
        if constexpr (Store) {
#pragma unroll
          for (int q = 0; q < 4; ++q) v[q] = a[i + q][j];
          detail::store4_aligned(col + i, v);
        } else {
          detail::load4_aligned(col + i, v);
#pragma unroll
          for (int q = 0; q < 4; ++q) a[i + q][j] = v[q];
        }
      }
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) {
        if constexpr (Store) col[i] = a[i][j];
        else a[i][j] = col[i];
      }
    }
  }
}

// The LU factorization with partial pivoting of a, LAPACK xGETF2 semantics:
// piv[k] = 0-based pivot row of step k, returns info = first zero pivot
// (1-based) or 0.
template <class T, int N>
__device__ __forceinline__ int lu_columns(T (&a)[N][N], int (&piv)[N]) {
  int info = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    // Pivot: the first row i >= k of largest magnitude (NaN ranks lowest).
    int p = k;
    T best = pivot_magnitude(a[k][k]), pv = a[k][k];
#pragma unroll
    for (int i = k + 1; i < N; ++i) {
      const T v = pivot_magnitude(a[i][k]);
      if (v > best) {
        best = v;
        p = i;
        pv = a[i][k];
      }
    }
    piv[k] = p;
    // Swap rows k and p: p is a runtime value, so a select per candidate row.
#pragma unroll
    for (int i = k + 1; i < N; ++i) {
      const bool s = p == i;
#pragma unroll
      for (int j = 0; j < N; ++j) {
        const T t = a[i][j];
        a[i][j] = s ? a[k][j] : t;
        a[k][j] = s ? t : a[k][j];
      }
    }
    if (pv == T(0)) {
      if (info == 0) info = k + 1;
      continue;  // LAPACK: no scaling, no update
    }
    // Multipliers a(i, k) / pv, by 1/pv where that is exact (Divider); one
    // branch per step, not per element.
    const Divider<T> d(pv);
    if (d.fast) {
#pragma unroll
      for (int i = k + 1; i < N; ++i) a[i][k] *= d.inv;
    } else {
#pragma unroll
      for (int i = k + 1; i < N; ++i) a[i][k] /= pv;
    }
#pragma unroll
    for (int j = k + 1; j < N; ++j)
#pragma unroll
      for (int i = k + 1; i < N; ++i) a[i][j] -= a[i][k] * a[k][j];
  }
  return info;
}

// x <- A^-1 x from the factors in the tile (F, leading dimension N) and the
// pivots of lu_columns.
template <class T, int N>
__device__ __forceinline__ void lu_solve_tile(const T* F, const int (&piv)[N], T (&x)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k)  // P b, the interchanges in order
#pragma unroll
    for (int i = k + 1; i < N; ++i) {
      const bool s = piv[k] == i;
      const T t = x[i];
      x[i] = s ? x[k] : t;
      x[k] = s ? t : x[k];
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

template <class T, int N, bool Solve, class Loc, class LocB>
__global__ void __launch_bounds__(kTileMatrices)
getrf_tiny_kernel(Loc A, index_t lda, bool contiguous, std::int32_t* ipiv, std::int32_t* info,
                  index_t count, LocB B, index_t ldb, index_t nrhs) {
  using L = TinyLayout<T, N>;
  constexpr int M = kTileMatrices;
  __shared__ __align__(16) T tile[M * L::S];
  __shared__ std::int32_t piv_tile[M * N];
  const int m = threadIdx.x;  // the thread's matrix in the tile
  for (index_t b0 = index_t(blockIdx.x) * M; b0 < count; b0 += index_t(gridDim.x) * M) {
    const int cnt = int(count - b0 < M ? count - b0 : M);
    tile_load<T, N, M>(tile, A, b0, lda, cnt, contiguous);
    __syncthreads();
    if (m < cnt) {
      T* const mine = tile + m * L::S;
      T a[N][N];
      tile_matrix<T, N, false>(mine, a);
      int piv[N];
      info[b0 + m] = lu_columns<T, N>(a, piv);
      tile_matrix<T, N, true>(mine, a);
#pragma unroll
      for (int k = 0; k < N; ++k) piv_tile[m * N + k] = piv[k] + 1;
      if constexpr (Solve) {
        T* const X = B(b0 + m);
        for (index_t c = 0; c < nrhs; ++c) {
          T x[N];
#pragma unroll
          for (int i = 0; i < N; ++i) x[i] = X[i + c * ldb];
          // opaque: otherwise the compiler hoists the factor's loads out of
          // the loop over right-hand sides and holds all N * N in registers.
          lu_solve_tile<T, N>(opaque(mine), piv, x);
#pragma unroll
          for (int i = 0; i < N; ++i) X[i + c * ldb] = x[i];
        }
      }
    }
    __syncthreads();
    tile_store<T, N, M>(tile, A, b0, lda, cnt, contiguous);
    for (int q = threadIdx.x; q < cnt * N; q += M) ipiv[b0 * N + q] = piv_tile[q];
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
#define DLA_CASE(N)                                                                          \
  case N:                                                                                    \
    getrf_tiny_kernel<T, N, Solve><<<grid_for(count, kTileMatrices), kTileMatrices, 0, s>>>( \
        A, lda, contig, ipiv, info, count, B, ldb, nrhs);                                    \
    break;
  switch (n) { DLA_CASE(1) DLA_CASE(2) DLA_CASE(3) DLA_CASE(4) DLA_CASE(5) DLA_CASE(6) DLA_CASE(7) DLA_CASE(8) }
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
