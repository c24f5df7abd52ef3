// Batched kernels for n > 32: one thread block per matrix. (getrf/potrf for
// n <= 64, FP32 n <= 128, go to the register kernels of batched_rows.cu
// first; see getrf_block / potrf_block below.)
//
// getrf/potrf: the matrix is copied into shared memory when it fits (n <= 128
// in FP32 and FP64 with the default opt-in limit; FP32 up to ~238), factored
// there right-looking (pivot search by one warp, row swap, column scale, rank-1
// update with one warp per column and lanes over rows: conflict-free, stride-1
// shared memory), and written back once. When the matrix does not fit (FP32
// n = 256, FP64 n > ~168, any n > 256) the same algorithm runs in place on
// global memory (L1/L2 resident): correct for every n, bounded by cache
// bandwidth.
//
// getrs/potrs: one warp per (matrix, right-hand side); the right-hand side is
// staged in shared memory, the factor is streamed column by column (coalesced).
#include <algorithm>

#include "batched_common.cuh"
#include "dla/core/cuda_check.hpp"

namespace dla::cuda::batched {
namespace {

// Column-major access, optionally transposed (Upper Cholesky in place reads
// L(i, j) = U(j, i)).
template <class T, bool Trans>
struct Acc {
  T* p;
  index_t ld;
  __device__ __forceinline__ T& operator()(index_t i, index_t j) const {
    return Trans ? p[j + i * ld] : p[i + j * ld];
  }
};

// Rows per lane whose multipliers the rank-1 update keeps in registers.
constexpr int kMaxRowsPerLane = 8;

// Step k's rank-1 update of the trailing matrix: M(i, j) -= M(i, k) u(j) for
// j > k and i > k (LowerOnly: only i >= j, the stored triangle of Cholesky).
// One warp per column, lanes over rows (conflict-free, stride-1); for
// n <= 32 kMaxRowsPerLane the lane's multipliers M(i, k) stay in registers
// across the columns.
template <class T, bool LowerOnly, class M_t, class U>
__device__ __forceinline__ void rank1_update(M_t M, index_t n, index_t k, int lane, int warp,
                                             int nwarps, U u) {
  if (n <= kMaxRowsPerLane * 32) {
    T lk[kMaxRowsPerLane];
#pragma unroll
    for (int q = 0; q < kMaxRowsPerLane; ++q) {
      const index_t i = k + 1 + lane + 32 * q;
      lk[q] = i < n ? M(i, k) : T(0);
    }
    for (index_t j = k + 1 + warp; j < n; j += nwarps) {
      const T uj = u(j);
#pragma unroll
      for (int q = 0; q < kMaxRowsPerLane; ++q) {
        if (k + 1 + 32 * q >= n) break;  // uniform
        const index_t i = k + 1 + lane + 32 * q;
        if (i < n && (!LowerOnly || i >= j)) M(i, j) -= lk[q] * uj;
      }
    }
  } else {
    for (index_t j = k + 1 + warp; j < n; j += nwarps) {
      const T uj = u(j);
      for (index_t i = (LowerOnly ? j : k + 1) + lane; i < n; i += 32) M(i, j) -= M(i, k) * uj;
    }
  }
}

// ---------------------------------------------------------------- getrf
template <class T, bool Smem, class Loc>
__global__ void getrf_block_kernel(index_t n, Loc A, index_t lda, std::int32_t* ipiv,
                                   std::int32_t* info, index_t count) {
  extern __shared__ __align__(16) unsigned char dla_smem_raw[];
  T* sm = reinterpret_cast<T*>(dla_smem_raw);
  __shared__ index_t s_p;
  __shared__ T s_piv;
  const int tid = threadIdx.x, nt = blockDim.x;
  const int lane = tid % 32, warp = tid / 32, nwarps = nt / 32;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    T* G = A(b);
    Acc<T, false> M{Smem ? sm : G, Smem ? n : lda};
    if (Smem) {
      for (index_t j = warp; j < n; j += nwarps)
        for (index_t i = lane; i < n; i += 32) M(i, j) = G[i + j * lda];
    }
    __syncthreads();
    int linfo = 0;
    for (index_t k = 0; k < n; ++k) {
      if (warp == 0) {
        T v = T(-1);
        index_t p = k;
        for (index_t i = k + lane; i < n; i += 32) {
          const T m = pivot_magnitude(M(i, k));
          if (m > v) { v = m; p = i; }
        }
        for (int off = 16; off > 0; off /= 2) {
          const T ov = __shfl_xor_sync(0xffffffffu, v, off);
          const index_t op = __shfl_xor_sync(0xffffffffu, p, off);
          if (ov > v || (ov == v && op < p)) { v = ov; p = op; }
        }
        if (lane == 0) {
          s_p = p;
          s_piv = M(p, k);
          ipiv[b * n + k] = std::int32_t(p + 1);
        }
      }
      __syncthreads();
      const index_t p = s_p;
      const T piv = s_piv;
      if (piv == T(0)) {
        if (linfo == 0) linfo = int(k + 1);
        __syncthreads();  // s_p / s_piv read by all before the next search
        continue;
      }
      if (p != k)
        for (index_t j = tid; j < n; j += nt) {
          const T t = M(k, j);
          M(k, j) = M(p, j);
          M(p, j) = t;
        }
      __syncthreads();
      for (index_t i = k + 1 + tid; i < n; i += nt) M(i, k) /= piv;
      __syncthreads();
      rank1_update<T, false>(M, n, k, lane, warp, nwarps,
                             [&](index_t j) { return M(k, j); });
      __syncthreads();
    }
    if (Smem) {
      for (index_t j = warp; j < n; j += nwarps)
        for (index_t i = lane; i < n; i += 32) G[i + j * lda] = M(i, j);
    }
    if (tid == 0) info[b] = linfo;
    __syncthreads();
  }
}

// ---------------------------------------------------------------- potrf
// Right-looking on the lower triangle of L (Upper: transposed on the way into
// shared memory, or transposed access in place).
template <class T, bool Smem, bool Upper, class Loc>
__global__ void potrf_block_kernel(index_t n, Loc A, index_t lda, std::int32_t* info,
                                   index_t count) {
  extern __shared__ __align__(16) unsigned char dla_smem_raw[];
  T* sm = reinterpret_cast<T*>(dla_smem_raw);
  const int tid = threadIdx.x, nt = blockDim.x;
  const int lane = tid % 32, warp = tid / 32, nwarps = nt / 32;
  constexpr bool kTransAcc = Upper && !Smem;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    T* G = A(b);
    Acc<T, kTransAcc> M{Smem ? sm : G, Smem ? n : lda};
    if (Smem) {
      for (index_t j = warp; j < n; j += nwarps)
        for (index_t i = j + lane; i < n; i += 32) M(i, j) = Upper ? G[j + i * lda] : G[i + j * lda];
    }
    __syncthreads();
    int linfo = 0;
    for (index_t k = 0; k < n; ++k) {
      const T d = M(k, k);
      if (!(d > T(0))) {  // uniform: every thread read the same value
        linfo = int(k + 1);
        break;
      }
      const T s = sqrt(d);
      __syncthreads();  // everyone has read d
      if (tid == 0) M(k, k) = s;
      for (index_t i = k + 1 + tid; i < n; i += nt) M(i, k) /= s;
      __syncthreads();
      rank1_update<T, true>(M, n, k, lane, warp, nwarps,
                            [&](index_t j) { return M(j, k); });
      __syncthreads();
    }
    __syncthreads();
    if (Smem) {
      for (index_t j = warp; j < n; j += nwarps)
        for (index_t i = j + lane; i < n; i += 32) {
          if (Upper) G[j + i * lda] = M(i, j);
          else G[i + j * lda] = M(i, j);
        }
    }
    if (tid == 0) info[b] = linfo;
    __syncthreads();
  }
}

// ---------------------------------------------------------------- getrs
constexpr int kSolveWarps = 4;

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

template <class T, class LocA, class LocB>
__global__ void getrs_warp_kernel(bool trans, index_t n, index_t nrhs, LocA A, index_t lda,
                                  const std::int32_t* ipiv, LocB B, index_t ldb, index_t count) {
  extern __shared__ __align__(16) unsigned char dla_smem_raw[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  T* x = reinterpret_cast<T*>(dla_smem_raw) + index_t(warp) * n;
  const index_t items = count * nrhs;
  const index_t wstride = index_t(gridDim.x) * (blockDim.x / 32);
  for (index_t it = index_t(blockIdx.x) * (blockDim.x / 32) + warp; it < items; it += wstride) {
    const index_t b = it / nrhs, c = it % nrhs;
    const T* M = A(b);
    T* xb = B(b) + c * ldb;
    const std::int32_t* pv = ipiv + b * n;
    for (index_t i = lane; i < n; i += 32) x[i] = xb[i];
    __syncwarp();
    if (!trans) {
      if (lane == 0)
        for (index_t k = 0; k < n; ++k) {
          const index_t p = pv[k] - 1;
          if (p != k) { const T t = x[k]; x[k] = x[p]; x[p] = t; }
        }
      __syncwarp();
      for (index_t k = 0; k < n; ++k) {  // L y = P b
        const T xk = x[k];
        for (index_t i = k + 1 + lane; i < n; i += 32) x[i] -= M[i + k * lda] * xk;
        __syncwarp();
      }
      for (index_t k = n - 1; k >= 0; --k) {  // U x = y
        const T xk = x[k] / M[k + k * lda];
        __syncwarp();
        if (lane == 0) x[k] = xk;
        for (index_t i = lane; i < k; i += 32) x[i] -= M[i + k * lda] * xk;
        __syncwarp();
      }
    } else {
      for (index_t k = 0; k < n; ++k) {  // U^T y = b
        T s = T(0);
        for (index_t j = lane; j < k; j += 32) s += M[j + k * lda] * x[j];
        s = warp_sum(s);
        const T xk = (x[k] - s) / M[k + k * lda];
        __syncwarp();
        if (lane == 0) x[k] = xk;
        __syncwarp();
      }
      for (index_t k = n - 1; k >= 0; --k) {  // L^T z = y, unit diagonal
        T s = T(0);
        for (index_t j = k + 1 + lane; j < n; j += 32) s += M[j + k * lda] * x[j];
        s = warp_sum(s);
        const T xk = x[k] - s;
        __syncwarp();
        if (lane == 0) x[k] = xk;
        __syncwarp();
      }
      if (lane == 0)
        for (index_t k = n - 1; k >= 0; --k) {  // x = P^T z
          const index_t p = pv[k] - 1;
          if (p != k) { const T t = x[k]; x[k] = x[p]; x[p] = t; }
        }
      __syncwarp();
    }
    for (index_t i = lane; i < n; i += 32) xb[i] = x[i];
    __syncwarp();
  }
}

// ---------------------------------------------------------------- potrs
template <class T, bool Upper, class LocA, class LocB>
__global__ void potrs_warp_kernel(index_t n, index_t nrhs, LocA A, index_t lda, LocB B,
                                  index_t ldb, index_t count) {
  extern __shared__ __align__(16) unsigned char dla_smem_raw[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  T* x = reinterpret_cast<T*>(dla_smem_raw) + index_t(warp) * n;
  const index_t items = count * nrhs;
  const index_t wstride = index_t(gridDim.x) * (blockDim.x / 32);
  for (index_t it = index_t(blockIdx.x) * (blockDim.x / 32) + warp; it < items; it += wstride) {
    const index_t b = it / nrhs, c = it % nrhs;
    Acc<const T, Upper> L{A(b), lda};  // L(i, j); Upper: U(j, i)
    T* xb = B(b) + c * ldb;
    for (index_t i = lane; i < n; i += 32) x[i] = xb[i];
    __syncwarp();
    if (!Upper) {
      for (index_t k = 0; k < n; ++k) {  // L y = b, column oriented (coalesced columns)
        const T xk = x[k] / L(k, k);
        __syncwarp();
        if (lane == 0) x[k] = xk;
        for (index_t i = k + 1 + lane; i < n; i += 32) x[i] -= L(i, k) * xk;
        __syncwarp();
      }
      for (index_t k = n - 1; k >= 0; --k) {  // L^T x = y, dot products down columns
        T s = T(0);
        for (index_t j = k + 1 + lane; j < n; j += 32) s += L(j, k) * x[j];
        s = warp_sum(s);
        const T xk = (x[k] - s) / L(k, k);
        __syncwarp();
        if (lane == 0) x[k] = xk;
        __syncwarp();
      }
    } else {
      for (index_t k = 0; k < n; ++k) {  // U^T y = b: dot products down columns of U
        T s = T(0);
        for (index_t j = lane; j < k; j += 32) s += L(k, j) * x[j];
        s = warp_sum(s);
        const T xk = (x[k] - s) / L(k, k);
        __syncwarp();
        if (lane == 0) x[k] = xk;
        __syncwarp();
      }
      for (index_t k = n - 1; k >= 0; --k) {  // U x = y, column oriented
        const T xk = x[k] / L(k, k);
        __syncwarp();
        if (lane == 0) x[k] = xk;
        for (index_t i = lane; i < k; i += 32) x[i] -= L(k, i) * xk;
        __syncwarp();
      }
    }
    for (index_t i = lane; i < n; i += 32) xb[i] = x[i];
    __syncwarp();
  }
}

int max_optin_smem() {
  int dev = 0, bytes = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  DLA_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  return bytes;
}

int block_threads(index_t n) { return n <= 64 ? 64 : (n <= 128 ? 128 : 256); }

}  // namespace

template <class T, class Loc>
void getrf_block(stream_t s, index_t n, Loc A, index_t lda, std::int32_t* ipiv,
                 std::int32_t* info, index_t count) {
  if (n > kRegisterMaxN && n <= rows_max_n<T>()) {
    getrf_rows<T>(s, int(n), A, lda, ipiv, info, count);
    return;
  }
  const std::size_t bytes = std::size_t(n) * std::size_t(n) * sizeof(T);
  const unsigned grid = grid_for(count, 1);
  const int threads = block_threads(n);
  const std::size_t limit = std::size_t(max_optin_smem()) - 1024;  // room for static smem
  if (bytes <= limit) {
    auto k = getrf_block_kernel<T, true, Loc>;
    allow_smem(k, bytes);
    k<<<grid, threads, bytes, s>>>(n, A, lda, ipiv, info, count);
  } else if (getrf_blocked_smem<T>(n) <= limit) {
    getrf_blocked<T>(s, n, A, lda, ipiv, info, count);
    return;
  } else {
    getrf_block_kernel<T, false, Loc><<<grid, threads, 0, s>>>(n, A, lda, ipiv, info, count);
  }
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class Loc>
void potrf_block(stream_t s, bool upper, index_t n, Loc A, index_t lda, std::int32_t* info,
                 index_t count) {
  if (n > kRegisterMaxN && n <= rows_max_n<T>()) {
    potrf_rows<T>(s, upper, int(n), A, lda, info, count);
    return;
  }
  const std::size_t bytes = std::size_t(n) * std::size_t(n) * sizeof(T);
  const unsigned grid = grid_for(count, 1);
  const int threads = block_threads(n);
  const std::size_t limit = std::size_t(max_optin_smem()) - 1024;  // room for static smem
  if (bytes <= limit) {
    auto k = upper ? potrf_block_kernel<T, true, true, Loc> : potrf_block_kernel<T, true, false, Loc>;
    allow_smem(k, bytes);
    k<<<grid, threads, bytes, s>>>(n, A, lda, info, count);
  } else if (potrf_blocked_smem<T>(n) <= limit) {
    potrf_blocked<T>(s, upper, n, A, lda, info, count);
    return;
  } else {
    auto k = upper ? potrf_block_kernel<T, false, true, Loc> : potrf_block_kernel<T, false, false, Loc>;
    k<<<grid, threads, 0, s>>>(n, A, lda, info, count);
  }
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class LocA, class LocB>
void getrs_warp(stream_t s, bool trans, index_t n, index_t nrhs, LocA A, index_t lda,
                const std::int32_t* ipiv, LocB B, index_t ldb, index_t count) {
  if (n <= kLanesMaxN) {
    getrs_lanes<T>(s, trans, n, nrhs, A, lda, ipiv, B, ldb, count);
    return;
  }
  const std::size_t bytes = std::size_t(kSolveWarps) * std::size_t(n) * sizeof(T);
  const unsigned grid = grid_for(count * nrhs, kSolveWarps);
  getrs_warp_kernel<T><<<grid, kSolveWarps * 32, bytes, s>>>(trans, n, nrhs, A, lda, ipiv, B, ldb,
                                                             count);
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class LocA, class LocB>
void potrs_warp(stream_t s, bool upper, index_t n, index_t nrhs, LocA A, index_t lda, LocB B,
                index_t ldb, index_t count) {
  if (n <= kLanesMaxN) {
    potrs_lanes<T>(s, upper, n, nrhs, A, lda, B, ldb, count);
    return;
  }
  const std::size_t bytes = std::size_t(kSolveWarps) * std::size_t(n) * sizeof(T);
  const unsigned grid = grid_for(count * nrhs, kSolveWarps);
  if (upper)
    potrs_warp_kernel<T, true><<<grid, kSolveWarps * 32, bytes, s>>>(n, nrhs, A, lda, B, ldb, count);
  else
    potrs_warp_kernel<T, false><<<grid, kSolveWarps * 32, bytes, s>>>(n, nrhs, A, lda, B, ldb, count);
  DLA_CUDA_CHECK_LAUNCH();
}

#define DLA_INST(T)                                                                               \
  template void getrf_block<T, Strided<T>>(stream_t, index_t, Strided<T>, index_t, std::int32_t*, \
                                           std::int32_t*, index_t);                               \
  template void getrf_block<T, PtrArray<T>>(stream_t, index_t, PtrArray<T>, index_t,              \
                                            std::int32_t*, std::int32_t*, index_t);               \
  template void potrf_block<T, Strided<T>>(stream_t, bool, index_t, Strided<T>, index_t,          \
                                           std::int32_t*, index_t);                               \
  template void potrf_block<T, PtrArray<T>>(stream_t, bool, index_t, PtrArray<T>, index_t,        \
                                            std::int32_t*, index_t);                              \
  template void getrs_warp<T, Strided<const T>, Strided<T>>(stream_t, bool, index_t, index_t,     \
                                                            Strided<const T>, index_t,            \
                                                            const std::int32_t*, Strided<T>,      \
                                                            index_t, index_t);                    \
  template void getrs_warp<T, PtrArray<const T>, PtrArray<T>>(stream_t, bool, index_t, index_t,   \
                                                              PtrArray<const T>, index_t,         \
                                                              const std::int32_t*, PtrArray<T>,   \
                                                              index_t, index_t);                  \
  template void potrs_warp<T, Strided<const T>, Strided<T>>(stream_t, bool, index_t, index_t,     \
                                                            Strided<const T>, index_t,            \
                                                            Strided<T>, index_t, index_t);        \
  template void potrs_warp<T, PtrArray<const T>, PtrArray<T>>(stream_t, bool, index_t, index_t,   \
                                                              PtrArray<const T>, index_t,         \
                                                              PtrArray<T>, index_t, index_t);
DLA_INST(float)
DLA_INST(double)
#undef DLA_INST

}  // namespace dla::cuda::batched
