// Blocked batched getrf / potrf for matrices too large for shared memory
// (FP32 n = 256, FP64 n > ~168): one block per matrix, right-looking with
// 32-column panels. The panel (all rows below its top) is factored in shared
// memory (Cholesky with n <= 256: in registers, one row per thread). For LU
// the U12 block row is solved in shared memory 96 columns at a time, and each
// chunk's trailing columns are updated in global memory once per panel with a
// 4x4 register tile per thread (operands from shared memory). Global traffic:
// about n^3/(3*32) read-modify-writes instead of n^3/3 for the unblocked
// in-place kernel.
#include "batched_common.cuh"
#include "batched_shift.cuh"
#include "smem_vec.cuh"
#include "dla/core/cuda_check.hpp"

namespace dla::cuda::batched {
namespace {

constexpr int kNB = 32;
constexpr int kThreads = 256;

index_t round4(index_t v) { return (v + 3) / 4 * 4; }

template <class T, bool Trans>
struct GAcc {
  T* p;
  index_t ld;
  __device__ __forceinline__ T& operator()(index_t i, index_t j) const {
    return Trans ? p[j + i * ld] : p[i + j * ld];
  }
};

using detail::load4_aligned;

// acc[x][y] = sum_kk A[x + kk * lda_s] * B[y + kk * ldb_s] (shared memory;
// A and B 16-byte aligned, lda_s and ldb_s multiples of 4).
template <class T>
__device__ __forceinline__ void tile_4x4(T (&acc)[4][4], const T* A, index_t lda_s, const T* B,
                                         index_t ldb_s, int nb) {
#pragma unroll
  for (int x = 0; x < 4; ++x)
#pragma unroll
    for (int y = 0; y < 4; ++y) acc[x][y] = T(0);
  for (int kk = 0; kk < nb; ++kk) {
    T a[4], b[4];
    load4_aligned(A + kk * lda_s, a);
    load4_aligned(B + kk * ldb_s, b);
#pragma unroll
    for (int x = 0; x < 4; ++x)
#pragma unroll
      for (int y = 0; y < 4; ++y) acc[x][y] += a[x] * b[y];
  }
}

// Pivot search by warp 0 over P(kk..m-1, kk): first maximum of |.|.
template <class T>
__device__ __forceinline__ void find_pivot(const T* P, index_t ldp, index_t m, index_t kk,
                                           index_t& p_out, T& piv_out) {
  const int lane = threadIdx.x % 32;
  T v = T(-1);
  index_t p = kk;
  for (index_t i = kk + lane; i < m; i += 32) {
    const T mg = pivot_magnitude(P[i + kk * ldp]);
    if (mg > v) { v = mg; p = i; }
  }
  for (int off = 16; off > 0; off /= 2) {
    const T ov = __shfl_xor_sync(0xffffffffu, v, off);
    const index_t op = __shfl_xor_sync(0xffffffffu, p, off);
    if (ov > v || (ov == v && op < p)) { v = ov; p = op; }
  }
  p_out = p;
  piv_out = P[p + kk * ldp];
}

// FP32: at least 4 blocks per SM (n = 256: 500 matrices in one wave on 132
// SMs; uncapped, ptxas takes 128 registers and fits 2).
template <class T, class Loc>
__global__ void __launch_bounds__(kThreads, sizeof(T) == 4 ? 4 : 1)
getrf_blocked_kernel(index_t n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                     index_t count, index_t cu) {
  extern __shared__ __align__(16) unsigned char dla_smem_raw[];
  const index_t ldp = (n + 3) / 4 * 4;
  T* P = reinterpret_cast<T*>(dla_smem_raw);  // panel: ldp x kNB
  T* U = P + ldp * kNB;                        // U12 chunk: kNB x cu (row-major, ld = cu)
  __shared__ index_t s_swap[kNB];
  __shared__ index_t s_p;
  __shared__ T s_piv;
  const int tid = threadIdx.x, nt = blockDim.x;
  const int lane = tid % 32, warp = tid / 32, nwarps = nt / 32;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    GAcc<T, false> G{A(b), lda};
    int linfo = 0;
    for (index_t c0 = 0; c0 < n; c0 += kNB) {
      const index_t nb = n - c0 < kNB ? n - c0 : kNB, m = n - c0;
      for (index_t jj = warp; jj < nb; jj += nwarps)
        for (index_t i = lane; i < m; i += 32) P[i + jj * ldp] = G(c0 + i, c0 + jj);
      __syncthreads();
      // Factor the panel (m x nb) in shared memory.
      for (index_t kk = 0; kk < nb; ++kk) {
        if (warp == 0) {
          index_t p;
          T piv;
          find_pivot(P, ldp, m, kk, p, piv);
          if (lane == 0) {
            s_p = p;
            s_piv = piv;
            s_swap[kk] = p;
            ipiv[b * n + c0 + kk] = std::int32_t(c0 + p + 1);
          }
        }
        __syncthreads();
        const index_t p = s_p;
        const T piv = s_piv;
        if (piv == T(0)) {
          if (linfo == 0) linfo = int(c0 + kk + 1);
          __syncthreads();
          continue;
        }
        if (p != kk)
          for (index_t jj = tid; jj < nb; jj += nt) {
            const T t = P[kk + jj * ldp];
            P[kk + jj * ldp] = P[p + jj * ldp];
            P[p + jj * ldp] = t;
          }
        __syncthreads();
        for (index_t i = kk + 1 + tid; i < m; i += nt) P[i + kk * ldp] /= piv;
        __syncthreads();
        for (index_t jj = kk + 1 + warp; jj < nb; jj += nwarps) {
          const T u = P[kk + jj * ldp];
          for (index_t i = kk + 1 + lane; i < m; i += 32) P[i + jj * ldp] -= P[i + kk * ldp] * u;
        }
        __syncthreads();
      }
      // Panel back; the panel's row swaps applied to every other column.
      for (index_t jj = warp; jj < nb; jj += nwarps)
        for (index_t i = lane; i < m; i += 32) G(c0 + i, c0 + jj) = P[i + jj * ldp];
      for (index_t j = tid; j < n; j += nt) {
        if (j >= c0 && j < c0 + nb) continue;
        for (index_t kk = 0; kk < nb; ++kk) {
          const index_t p = s_swap[kk];
          if (p != kk) {
            const T t = G(c0 + kk, j);
            G(c0 + kk, j) = G(c0 + p, j);
            G(c0 + p, j) = t;
          }
        }
      }
      __syncthreads();
      // Trailing columns (and rows) in chunks of at most cu columns: U holds
      // one chunk of the U12 block row, so the shared memory per block stays
      // small enough for 4 blocks per SM at n = 256.
      const index_t r = n - c0 - nb;
      for (index_t j0 = 0; j0 < r; j0 += cu) {
        const index_t cw = r - j0 < cu ? r - j0 : cu;
        // U12 = L11^{-1} A12, one thread per column.
        for (index_t kk = warp; kk < nb; kk += nwarps)
          for (index_t j = lane; j < cw; j += 32) U[kk * cu + j] = G(c0 + kk, c0 + nb + j0 + j);
        __syncthreads();
        for (index_t j = tid; j < cw; j += nt)
          for (index_t kk = 0; kk < nb; ++kk) {
            const T x = U[kk * cu + j];
            for (index_t i = kk + 1; i < nb; ++i) U[i * cu + j] -= P[i + kk * ldp] * x;
          }
        __syncthreads();
        for (index_t kk = warp; kk < nb; kk += nwarps)
          for (index_t j = lane; j < cw; j += 32) G(c0 + kk, c0 + nb + j0 + j) = U[kk * cu + j];
        // A22(:, chunk) -= L21 U12(:, chunk) with 4x4 tiles.
        const index_t ti_n = (r + 3) / 4, tj_n = (cw + 3) / 4, tiles = ti_n * tj_n;
        for (index_t t = tid; t < tiles; t += nt) {
          const index_t ti = t % ti_n, tj = t / ti_n;
          T acc[4][4];
          tile_4x4(acc, P + nb + 4 * ti, ldp, U + 4 * tj, cu, int(nb));
#pragma unroll
          for (int x = 0; x < 4; ++x)
#pragma unroll
            for (int y = 0; y < 4; ++y) {
              const index_t i = nb + 4 * ti + x, j = 4 * tj + y;  // relative to the panel / chunk
              if (i < m && j < cw) G(c0 + i, c0 + nb + j0 + j) -= acc[x][y];
            }
        }
        __syncthreads();
      }
    }
    if (tid == 0) info[b] = linfo;
    __syncthreads();
  }
}

// L(c0 + i, c0 + j) to the matrix and to the shared panel P(i, j).
template <class T, bool Upper>
struct PanelStore {
  GAcc<T, Upper> G;
  T* P;
  index_t ldp, c0;
  __device__ __forceinline__ void operator()(int i, int j, T v) const {
    G(c0 + i, c0 + j) = v;
    P[i + j * index_t(ldp)] = v;
  }
};

// A22 -= L21 L21^T (the r x r trailing matrix after the panel at c0, lower
// tiles only), L21 from the shared panel P, 4x4 tiles per thread.
template <class T, bool Upper>
__device__ __forceinline__ void syrk_tiles(const GAcc<T, Upper>& G, const T* P, index_t ldp,
                                           index_t c0, index_t nb, index_t r) {
  const int tid = threadIdx.x, nt = blockDim.x;
  const index_t tr = (r + 3) / 4, tiles = tr * tr;
  for (index_t t = tid; t < tiles; t += nt) {
    const index_t ti = t % tr, tj = t / tr;
    if (ti < tj) continue;
    T acc[4][4];
    tile_4x4(acc, P + nb + 4 * ti, ldp, P + nb + 4 * tj, ldp, int(nb));
#pragma unroll
    for (int x = 0; x < 4; ++x)
#pragma unroll
      for (int y = 0; y < 4; ++y) {
        const index_t i = 4 * ti + x, j = 4 * tj + y;
        if (i < r && j <= i) G(c0 + nb + i, c0 + nb + j) -= acc[x][y];
      }
  }
}

// Right-looking blocked Cholesky on L (Upper: transposed access).
// RegPanel (n <= kThreads): thread r holds panel row r in registers and the
// panel is factored with PotrfStep (batched_shift.cuh), one barrier per
// column. The shared-memory panel loop below it (3 barriers per column, every
// inner loop a chain of shared-memory round trips) took ~4500 cycles per
// column at n = 256 (potrf 500 x 256: 0.58 ms, now 0.35) and remains for
// larger n.
template <class T, bool Upper, bool RegPanel, class Loc>
__global__ void __launch_bounds__(kThreads)
potrf_blocked_kernel(index_t n, Loc A, index_t lda, std::int32_t* info, index_t count) {
  extern __shared__ __align__(16) unsigned char dla_smem_raw[];
  const index_t ldp = (n + 3) / 4 * 4;
  T* P = reinterpret_cast<T*>(dla_smem_raw);  // panel: ldp x kNB
  __shared__ __align__(16) T col[2][kNB + 4];  // RegPanel: PotrfStep's column buffer
  const int tid = threadIdx.x, nt = blockDim.x;
  const int lane = tid % 32, warp = tid / 32, nwarps = nt / 32;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    GAcc<T, Upper> G{A(b), lda};
    int linfo = 0;
    for (index_t c0 = 0; c0 < n && linfo == 0; c0 += kNB) {
      const index_t nb = n - c0 < kNB ? n - c0 : kNB, m = n - c0;
      const index_t r = n - c0 - nb;
      if constexpr (RegPanel) {  // m <= kThreads
        T a[kNB];
        const bool active = tid < m;
#pragma unroll
        for (int j = 0; j < kNB; ++j)
          a[j] = (active && j <= tid && j < nb) ? G(c0 + tid, c0 + j) : T(0);
        PotrfStep<T, kNB, PanelStore<T, Upper>> st{col, {G, P, ldp, c0}, a, tid, active, int(nb), 0};
        int k = 0;
        if (!run_phases<kNB, kNB>(st, int(nb), k)) linfo = int(c0) + st.linfo;
        __syncthreads();  // P complete
        if (linfo == 0 && r > 0) syrk_tiles(G, P, ldp, c0, nb, r);
        __syncthreads();
        continue;
      }
      for (index_t jj = warp; jj < nb; jj += nwarps)
        for (index_t i = jj + lane; i < m; i += 32) P[i + jj * ldp] = G(c0 + i, c0 + jj);
      __syncthreads();
      index_t done = nb;
      for (index_t kk = 0; kk < nb; ++kk) {
        const T d = P[kk + kk * ldp];
        if (!(d > T(0))) {  // uniform
          linfo = int(c0 + kk + 1);
          done = kk;
          break;
        }
        const T s = sqrt(d);
        __syncthreads();
        if (tid == 0) P[kk + kk * ldp] = s;
        for (index_t i = kk + 1 + tid; i < m; i += nt) P[i + kk * ldp] /= s;
        __syncthreads();
        for (index_t jj = kk + 1 + warp; jj < nb; jj += nwarps) {
          const T l = P[jj + kk * ldp];
          for (index_t i = jj + lane; i < m; i += 32) P[i + jj * ldp] -= P[i + kk * ldp] * l;
        }
        __syncthreads();
      }
      __syncthreads();
      // Panel back (the columns processed; on failure the state at the stop).
      for (index_t jj = warp; jj < nb; jj += nwarps)
        for (index_t i = jj + lane; i < m; i += 32) G(c0 + i, c0 + jj) = P[i + jj * ldp];
      if (linfo == 0 && r > 0 && done == nb) syrk_tiles(G, P, ldp, c0, nb, r);
      __syncthreads();
    }
    if (tid == 0) info[b] = linfo;
    __syncthreads();
  }
}

}  // namespace

// Columns of the U12 chunk in shared memory (a multiple of 4). H200, FP32
// n = 256, 500 matrices (getrf ms): 96 -> 1.144, 64 -> 1.184, 224 (the whole
// block row, 3 blocks per SM) -> 1.738. With 96 a block needs 45 KB, and
// both shared memory and the kernel's 64-register cap allow 4 blocks per SM,
// so 500 matrices run in one wave instead of two.
inline index_t u12_chunk(index_t n) { return round4(n < 96 ? n : 96); }

template <class T>
std::size_t getrf_blocked_smem(index_t n) {
  return std::size_t(round4(n) + u12_chunk(n)) * kNB * sizeof(T);
}
template <class T>
std::size_t potrf_blocked_smem(index_t n) {
  return std::size_t(round4(n)) * kNB * sizeof(T);
}

template <class T, class Loc>
void getrf_blocked(stream_t s, index_t n, Loc A, index_t lda, std::int32_t* ipiv,
                   std::int32_t* info, index_t count) {
  const std::size_t bytes = getrf_blocked_smem<T>(n);
  auto k = getrf_blocked_kernel<T, Loc>;
  allow_smem(k, bytes);
  k<<<grid_for(count, 1), kThreads, bytes, s>>>(n, A, lda, ipiv, info, count, u12_chunk(n));
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class Loc>
void potrf_blocked(stream_t s, bool upper, index_t n, Loc A, index_t lda, std::int32_t* info,
                   index_t count) {
  const std::size_t bytes = potrf_blocked_smem<T>(n);
  const bool reg = n <= kThreads;
  auto k = upper ? (reg ? potrf_blocked_kernel<T, true, true, Loc> : potrf_blocked_kernel<T, true, false, Loc>)
                 : (reg ? potrf_blocked_kernel<T, false, true, Loc> : potrf_blocked_kernel<T, false, false, Loc>);
  allow_smem(k, bytes);
  k<<<grid_for(count, 1), kThreads, bytes, s>>>(n, A, lda, info, count);
  DLA_CUDA_CHECK_LAUNCH();
}

#define DLA_INST(T)                                                                             \
  template std::size_t getrf_blocked_smem<T>(index_t);                                          \
  template std::size_t potrf_blocked_smem<T>(index_t);                                          \
  template void getrf_blocked<T, Strided<T>>(stream_t, index_t, Strided<T>, index_t,            \
                                             std::int32_t*, std::int32_t*, index_t);            \
  template void getrf_blocked<T, PtrArray<T>>(stream_t, index_t, PtrArray<T>, index_t,          \
                                              std::int32_t*, std::int32_t*, index_t);           \
  template void potrf_blocked<T, Strided<T>>(stream_t, bool, index_t, Strided<T>, index_t,      \
                                             std::int32_t*, index_t);                           \
  template void potrf_blocked<T, PtrArray<T>>(stream_t, bool, index_t, PtrArray<T>, index_t,    \
                                              std::int32_t*, index_t);
DLA_INST(float)
DLA_INST(double)
#undef DLA_INST

}  // namespace dla::cuda::batched
