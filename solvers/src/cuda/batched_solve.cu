// Batched triangular solves for 32 < n <= 256 (getrs / potrs after the
// factorization kernels): one warp per (matrix, right-hand side), the vector
// in registers (lane l holds x[l + 32 t], t < RP = ceil(n / 32)), the factor
// streamed one column at a time with 4-8 columns loaded ahead.
//
// The shared-memory warp kernels (batched_block.cu, still used for n > 256)
// waited for every column load before its update: a chain of 2n dependent
// global loads per solve, ~0.2 ms for 10000 systems of 64 on the H200 where
// reading the factors takes 0.04 ms. Here the loads of D columns are in flight
// while one is applied, and x[k] moves between lanes by shuffles instead of a
// shared buffer and __syncwarp.
//
// Two sweeps cover all four triangular solves of a column-major factor:
//   axpy: column k updates the rows below (lower, k ascending) or above
//         (upper, k descending) it: x[i] -= M(i, k) x[k];
//   dot:  x[k] = (x[k] - sum_j M(j, k) x[j]) / M(k, k) over the rows below
//         (lower^T, k descending) or above (upper^T, k ascending) it.
#include "batched_common.cuh"
#include "smem_vec.cuh"
#include "dla/core/cuda_check.hpp"

namespace dla::cuda::batched {
namespace {

constexpr int kWarps = 4;  // warps per block
// Columns loaded ahead: 8 from n = 65 (few systems per SM there, the loads
// must hide themselves), 4 below (many warps per SM; 8 costs occupancy).
template <int RP>
constexpr int depth() { return RP >= 4 ? 8 : 4; }

template <class T, int RP>
__device__ __forceinline__ T pick(const T (&v)[RP], int t) {
  T r = v[0];
#pragma unroll
  for (int q = 1; q < RP; ++q)
    if (q == t) r = v[q];
  return r;
}

// Column k of M (rows lane + 32 t) into c; zero outside the matrix.
template <class T, int RP>
__device__ __forceinline__ void load_column(const T* M, index_t lda, int n, int k, int lane,
                                            T (&c)[RP]) {
#pragma unroll
  for (int t = 0; t < RP; ++t) {
    const int i = lane + 32 * t;
    c[t] = (k >= 0 && k < n && i < n) ? M[i + index_t(k) * lda] : T(0);
  }
}

// The column handled at step s of a sweep: ascending or descending.
__device__ __forceinline__ int column_at(int s, int n, bool ascending) {
  return s >= n ? -1 : (ascending ? s : n - 1 - s);
}

// axpy sweep: Lower: x = L^-1 x (k ascending, rows below); else x = U^-1 x
// (k descending, rows above). Unit: the diagonal is taken as 1.
template <class T, int RP, bool Lower, bool Unit>
__device__ __forceinline__ void sweep_axpy(const T* M, index_t lda, int n, int lane, T (&x)[RP]) {
  constexpr int D = depth<RP>();
  T buf[D][RP];
#pragma unroll
  for (int d = 0; d < D; ++d) load_column(M, lda, n, column_at(d, n, Lower), lane, buf[d]);
  for (int s0 = 0; s0 < n; s0 += D) {
#pragma unroll
    for (int d = 0; d < D; ++d) {
      const int s = s0 + d;
      if (s >= n) break;  // uniform
      const int k = column_at(s, n, Lower), owner = k % 32, tk = k / 32;
      T xk = pick(x, tk);
      if (!Unit) {  // meaningful on the owner lane only; the others divide by 1
        // The reciprocal depends on the loaded column only, so it is off the
        // chain from x[k] to the update (the division was on it).
        const Divider<T> div(lane == owner ? pick(buf[d], tk) : T(1));
        xk = div(xk);
      }
      xk = __shfl_sync(0xffffffffu, xk, owner);
#pragma unroll
      for (int t = 0; t < RP; ++t) {
        const int i = lane + 32 * t;
        if (i == k) x[t] = xk;
        else if (Lower ? i > k : i < k) x[t] -= buf[d][t] * xk;
      }
      load_column(M, lda, n, column_at(s + D, n, Lower), lane, buf[d]);
    }
  }
}

// dot sweep: Lower: x = L^-T x (k descending, rows below k); else x = U^-T x
// (k ascending, rows above k).
template <class T, int RP, bool Lower, bool Unit>
__device__ __forceinline__ void sweep_dot(const T* M, index_t lda, int n, int lane, T (&x)[RP]) {
  constexpr int D = depth<RP>();
  T buf[D][RP];
#pragma unroll
  for (int d = 0; d < D; ++d) load_column(M, lda, n, column_at(d, n, !Lower), lane, buf[d]);
  for (int s0 = 0; s0 < n; s0 += D) {
#pragma unroll
    for (int d = 0; d < D; ++d) {
      const int s = s0 + d;
      if (s >= n) break;  // uniform
      const int k = column_at(s, n, !Lower), tk = k / 32;
      T part = T(0);
#pragma unroll
      for (int t = 0; t < RP; ++t) {
        const int j = lane + 32 * t;
        if (Lower ? j > k : j < k) part += buf[d][t] * x[t];
      }
#pragma unroll
      for (int off = 16; off > 0; off /= 2) part += __shfl_xor_sync(0xffffffffu, part, off);
      const Divider<T> div(Unit || lane != k % 32 ? T(1) : pick(buf[d], tk));  // off the chain
      if (lane == k % 32) {
        T xk = pick(x, tk) - part;
        if (!Unit) xk = div(xk);
#pragma unroll
        for (int t = 0; t < RP; ++t)
          if (t == tk) x[t] = xk;
      }
      load_column(M, lda, n, column_at(s + D, n, !Lower), lane, buf[d]);
    }
  }
}

template <class T, int RP>
__device__ __forceinline__ void load_x(const T* xb, int n, int lane, T (&x)[RP]) {
#pragma unroll
  for (int t = 0; t < RP; ++t) {
    const int i = lane + 32 * t;
    x[t] = i < n ? xb[i] : T(0);
  }
}
template <class T, int RP>
__device__ __forceinline__ void store_x(T* xb, int n, int lane, const T (&x)[RP]) {
#pragma unroll
  for (int t = 0; t < RP; ++t) {
    const int i = lane + 32 * t;
    if (i < n) xb[i] = x[t];
  }
}

// The row interchanges of ipiv applied to the vector in shared memory (one
// lane, in order for P b, in reverse for P^T b).
template <class T>
__device__ __forceinline__ void swap_rows(T* xs, const std::int32_t* pv, int n, bool reverse) {
  if (!reverse) {
    for (int k = 0; k < n; ++k) {
      const int p = pv[k] - 1;
      if (p != k) { const T t = xs[k]; xs[k] = xs[p]; xs[p] = t; }
    }
  } else {
    for (int k = n - 1; k >= 0; --k) {
      const int p = pv[k] - 1;
      if (p != k) { const T t = xs[k]; xs[k] = xs[p]; xs[p] = t; }
    }
  }
}

template <class T, int RP, class LocA, class LocB>
__global__ void __launch_bounds__(kWarps * 32)
getrs_lanes_kernel(bool trans, int n, index_t nrhs, LocA A, index_t lda,
                   const std::int32_t* ipiv, LocB B, index_t ldb, index_t count) {
  __shared__ T stage[kWarps][32 * RP];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  T* const xs = stage[warp];
  const index_t items = count * nrhs;
  for (index_t it = index_t(blockIdx.x) * kWarps + warp; it < items;
       it += index_t(gridDim.x) * kWarps) {
    const index_t b = it / nrhs, c = it % nrhs;
    const T* M = A(b);
    T* xb = B(b) + c * ldb;
    const std::int32_t* pv = ipiv + b * n;
    T x[RP];
    if (!trans) {
      for (int i = lane; i < n; i += 32) xs[i] = xb[i];
      __syncwarp();
      if (lane == 0) swap_rows(xs, pv, n, false);
      __syncwarp();
      load_x(xs, n, lane, x);
      sweep_axpy<T, RP, true, true>(M, lda, n, lane, x);    // L y = P b
      sweep_axpy<T, RP, false, false>(M, lda, n, lane, x);  // U x = y
      store_x(xb, n, lane, x);
    } else {
      load_x(xb, n, lane, x);
      sweep_dot<T, RP, false, false>(M, lda, n, lane, x);  // U^T y = b
      sweep_dot<T, RP, true, true>(M, lda, n, lane, x);    // L^T z = y
      store_x(xs, n, lane, x);
      __syncwarp();
      if (lane == 0) swap_rows(xs, pv, n, true);  // x = P^T z
      __syncwarp();
      for (int i = lane; i < n; i += 32) xb[i] = xs[i];
    }
    __syncwarp();  // the next item rewrites xs
  }
}

// ---------------------------------------------------------------- getrs (op N), n <= 64
// The factor staged in shared memory first. getrs_lanes_kernel streams the
// factor a few columns ahead of its column chain; at n = 64 the chain waits on
// those loads (ncu on the H200, getrs 10000 x 64: 129 us for 164 MB of
// factors, 1.9 TB/s, long-scoreboard stalls at the first use of each column;
// 8 or 16 columns ahead changed nothing, session 8). Here a warp copies the
// whole factor, b and the pivots into shared memory by cp.async (every copy
// in flight at once, no registers held), then runs both sweeps out of shared
// memory, where a column read does not depend on the chain and costs ~30
// cycles. The diagonal's reciprocals (Divider) are off the chain too.
constexpr int kStageWarps = 3;  // FP32 n = 64: 3 x 16.6 KB per block, 4 blocks per SM

// Per warp: the factor (leading dimension n, its size rounded up to 16 bytes
// so every warp's copy starts 16-byte aligned), b (64 entries), the pivots (64).
__host__ __device__ inline std::size_t stage_warp_elems(int n) {
  return (std::size_t(n) * std::size_t(n) + 3) / 4 * 4 + 64;
}
template <class T>
std::size_t getrs_stage_bytes(int n) {
  return kStageWarps * (stage_warp_elems(n) * sizeof(T) + 64 * sizeof(std::int32_t));
}

// F = the n x n matrix at M (leading dimension lda), copied by one warp with
// cp.async. A contiguous, 16-byte aligned matrix (lda = n, the usual strided
// batch) goes in 16-byte pieces, linearly: a quarter of the copies and none of
// the per-column address arithmetic (which was a sixth of the kernel's
// instructions with 4-byte copies, ncu).
template <class T>
__device__ __forceinline__ void stage_matrix(T* F, const T* M, int n, index_t lda, int lane) {
  constexpr int V = 16 / int(sizeof(T));
  const int total = n * n;
  if (lda == n && (reinterpret_cast<std::uintptr_t>(M) & 15u) == 0) {
    const int pieces = total / V;
    for (int q = lane; q < pieces; q += 32) detail::cp_async_16(F + q * V, M + q * V);
    for (int e = pieces * V + lane; e < total; e += 32) detail::cp_async_elem(F + e, M + e);
    return;
  }
  const T* col = M;
  for (int j = 0; j < n; ++j, col += lda)
    for (int i = lane; i < n; i += 32) detail::cp_async_elem(F + i + j * n, col + i);
}

// U x = y on lanes holding x[lane + 32 t]: x[k] times 1/U(k, k) (or divided
// by it, Fast = false) on its lane, then x[i] -= U(i, k) x[k] for i < k.
template <class T, int RP, bool Fast>
__device__ __forceinline__ void staged_upper_sweep(const T* F, int n, int lane, T (&x)[RP],
                                                   const T (&inv)[RP]) {
#pragma unroll 4
  for (int k = n - 1; k >= 0; --k) {
    const int owner = k % 32, tk = k / 32;
    T xk = pick(x, tk);
    if (lane == owner) xk = Fast ? xk * pick(inv, tk) : xk / F[k + k * n];
    xk = __shfl_sync(0xffffffffu, xk, owner);
#pragma unroll
    for (int t = 0; t < RP; ++t) {
      const int i = lane + 32 * t;
      const T u = i < k ? F[i + k * n] : T(0);
      x[t] = (t == tk && lane == owner) ? xk : x[t] - u * xk;
    }
  }
}

template <class T, class LocA, class LocB>
__global__ void __launch_bounds__(kStageWarps * 32)
getrs_staged_kernel(int n, index_t nrhs, LocA A, index_t lda, const std::int32_t* ipiv, LocB B,
                    index_t ldb, index_t count) {
  extern __shared__ __align__(16) unsigned char stage_smem[];
  constexpr int RP = 2;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  T* const F = reinterpret_cast<T*>(stage_smem) + warp * stage_warp_elems(n);
  T* const xs = F + (stage_warp_elems(n) - 64);
  std::int32_t* const ps = reinterpret_cast<std::int32_t*>(reinterpret_cast<T*>(stage_smem) +
                                                           kStageWarps * stage_warp_elems(n)) +
                           warp * 64;
  const index_t items = count * nrhs;
  for (index_t it = index_t(blockIdx.x) * kStageWarps + warp; it < items;
       it += index_t(gridDim.x) * kStageWarps) {
    const index_t b = it / nrhs, c = it % nrhs;
    T* const xb = B(b) + c * ldb;
    stage_matrix(F, A(b), n, lda, lane);
#pragma unroll
    for (int t = 0; t < RP; ++t) {
      const int i = lane + 32 * t;
      if (i < n) {
        detail::cp_async_elem(xs + i, xb + i);
        detail::cp_async_elem(ps + i, ipiv + b * n + i);
      }
    }
    detail::cp_async_wait_all();
    __syncwarp();
    if (lane == 0) swap_rows(xs, ps, n, false);  // P b
    __syncwarp();
    T x[RP];
    load_x(xs, n, lane, x);
    // L y = P b (unit lower): x[i] -= L(i, k) x[k] for i > k.
#pragma unroll 4
    for (int k = 0; k < n - 1; ++k) {
      const T xk = __shfl_sync(0xffffffffu, pick(x, k / 32), k % 32);
#pragma unroll
      for (int t = 0; t < RP; ++t) {
        const int i = lane + 32 * t;
        const T l = (i > k && i < n) ? F[i + k * n] : T(0);
        x[t] -= l * xk;
      }
    }
    // The reciprocals of this lane's diagonal entries, off the chain. When
    // every one is usable (Divider: 1/p normal, FP32), the sweep multiplies;
    // otherwise (FP64, a huge, tiny or zero diagonal) it divides, as LAPACK.
    // Warp-uniform, so the sweep has no branch per column.
    T inv[RP];
    bool fast = true;
#pragma unroll
    for (int t = 0; t < RP; ++t) {
      const int i = lane + 32 * t;
      const Divider<T> d(i < n ? F[i + i * n] : T(1));
      inv[t] = d.inv;
      fast = fast && d.fast;
    }
    if (__all_sync(0xffffffffu, fast)) staged_upper_sweep<T, RP, true>(F, n, lane, x, inv);
    else staged_upper_sweep<T, RP, false>(F, n, lane, x, inv);
    store_x(xb, n, lane, x);
    __syncwarp();  // the next item rewrites F, xs and ps
  }
}

template <class T, int RP, bool Upper, class LocA, class LocB>
__global__ void __launch_bounds__(kWarps * 32)
potrs_lanes_kernel(int n, index_t nrhs, LocA A, index_t lda, LocB B, index_t ldb, index_t count) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const index_t items = count * nrhs;
  for (index_t it = index_t(blockIdx.x) * kWarps + warp; it < items;
       it += index_t(gridDim.x) * kWarps) {
    const index_t b = it / nrhs, c = it % nrhs;
    const T* M = A(b);
    T* xb = B(b) + c * ldb;
    T x[RP];
    load_x(xb, n, lane, x);
    if (!Upper) {
      sweep_axpy<T, RP, true, false>(M, lda, n, lane, x);  // L y = b
      sweep_dot<T, RP, true, false>(M, lda, n, lane, x);   // L^T x = y
    } else {
      sweep_dot<T, RP, false, false>(M, lda, n, lane, x);   // U^T y = b
      sweep_axpy<T, RP, false, false>(M, lda, n, lane, x);  // U x = y
    }
    store_x(xb, n, lane, x);
  }
}

}  // namespace

template <class T, class LocA, class LocB>
void getrs_lanes(stream_t s, bool trans, index_t n, index_t nrhs, LocA A, index_t lda,
                 const std::int32_t* ipiv, LocB B, index_t ldb, index_t count) {
  const int ni = int(n);
  if (!trans && n <= 64) {
    const unsigned grid = grid_for(count * nrhs, kStageWarps);
    const std::size_t bytes = getrs_stage_bytes<T>(ni);
    auto k = getrs_staged_kernel<T, LocA, LocB>;
    allow_smem(k, bytes);
    k<<<grid, kStageWarps * 32, bytes, s>>>(ni, nrhs, A, lda, ipiv, B, ldb, count);
    DLA_CUDA_CHECK_LAUNCH();
    return;
  }
  const unsigned grid = grid_for(count * nrhs, kWarps);
  if (n <= 64)
    getrs_lanes_kernel<T, 2><<<grid, kWarps * 32, 0, s>>>(trans, ni, nrhs, A, lda, ipiv, B, ldb, count);
  else if (n <= 128)
    getrs_lanes_kernel<T, 4><<<grid, kWarps * 32, 0, s>>>(trans, ni, nrhs, A, lda, ipiv, B, ldb, count);
  else
    getrs_lanes_kernel<T, 8><<<grid, kWarps * 32, 0, s>>>(trans, ni, nrhs, A, lda, ipiv, B, ldb, count);
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class LocA, class LocB>
void potrs_lanes(stream_t s, bool upper, index_t n, index_t nrhs, LocA A, index_t lda, LocB B,
                 index_t ldb, index_t count) {
  const unsigned grid = grid_for(count * nrhs, kWarps);
  const int ni = int(n);
#define DLA_LAUNCH(RP)                                                                            \
  (upper ? potrs_lanes_kernel<T, RP, true><<<grid, kWarps * 32, 0, s>>>(ni, nrhs, A, lda, B, ldb, \
                                                                        count)                    \
         : potrs_lanes_kernel<T, RP, false><<<grid, kWarps * 32, 0, s>>>(ni, nrhs, A, lda, B, ldb, \
                                                                         count))
  if (n <= 64) DLA_LAUNCH(2);
  else if (n <= 128) DLA_LAUNCH(4);
  else DLA_LAUNCH(8);
#undef DLA_LAUNCH
  DLA_CUDA_CHECK_LAUNCH();
}

#define DLA_INST(T)                                                                               \
  template void getrs_lanes<T, Strided<const T>, Strided<T>>(stream_t, bool, index_t, index_t,    \
                                                             Strided<const T>, index_t,           \
                                                             const std::int32_t*, Strided<T>,     \
                                                             index_t, index_t);                   \
  template void getrs_lanes<T, PtrArray<const T>, PtrArray<T>>(stream_t, bool, index_t, index_t,  \
                                                               PtrArray<const T>, index_t,        \
                                                               const std::int32_t*, PtrArray<T>,  \
                                                               index_t, index_t);                 \
  template void potrs_lanes<T, Strided<const T>, Strided<T>>(stream_t, bool, index_t, index_t,    \
                                                             Strided<const T>, index_t,           \
                                                             Strided<T>, index_t, index_t);       \
  template void potrs_lanes<T, PtrArray<const T>, PtrArray<T>>(stream_t, bool, index_t, index_t,  \
                                                               PtrArray<const T>, index_t,        \
                                                               PtrArray<T>, index_t, index_t);
DLA_INST(float)
DLA_INST(double)
#undef DLA_INST

}  // namespace dla::cuda::batched
