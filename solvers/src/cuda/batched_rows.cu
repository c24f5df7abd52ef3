// Batched getrf/potrf for 32 < n <= NC (NC = 64, or 128 in FP32): one block
// of NC threads per matrix, thread r holds row r of the matrix in NC registers.
//
// The previous path for these sizes (batched_block.cu: the matrix in shared
// memory, 4 block barriers per column, 64-bit index arithmetic in every inner
// loop, one warp doing the pivot search) was latency bound at 20-40x its
// memory roofline. Here every update is a register FMA; per column:
//   getrf: pivot search = warp shuffle reduction + a 2..4-entry shared-memory
//          reduction (first maximum in pivoted order, ties -> lowest
//          position, NaN below every number), the winner's row broadcast
//          through shared memory (128-bit stores/loads), 2 block barriers.
//          Lazy row swaps as in batched_small.cu: each thread tracks the
//          position of its row in the pivoted order, rows are written to
//          their final place once at the end.
//   potrf: every thread publishes its (unscaled) A(r, k) in shared memory,
//          1 block barrier; the update uses L(r,k) L(j,k) = (A(r,k)/s^2) A(j,k)
//          with s = sqrt(A(k,k)), scaled by the reciprocal as LAPACK's potf2.
// The column loop is not unrolled (NC^2 instructions would not fit the
// instruction cache); register arrays are indexed only with compile-time
// indices, in chunks of 4 columns skipped by uniform branches.
// Shared buffers alternate by column parity, so a buffer is rewritten only
// after every thread has passed a later barrier.
#include "batched_common.cuh"
#include "smem_vec.cuh"
#include "dla/core/cuda_check.hpp"

namespace dla::cuda::batched {
namespace {

constexpr int kChunk = 4;

using detail::load4_aligned;
using detail::store4_aligned;

// a[k] for a runtime k (uniform in the block): chunk-wise uniform branches
// around compile-time selects, so `a` stays in registers.
template <class T, int NC>
__device__ __forceinline__ T pick(const T (&a)[NC], int k) {
  T v = T(0);
#pragma unroll
  for (int c = 0; c < NC; c += kChunk)
    if (k >= c && k < c + kChunk) {
#pragma unroll
      for (int q = 0; q < kChunk; ++q)
        if (k == c + q) v = a[c + q];
    }
  return v;
}
template <class T, int NC>
__device__ __forceinline__ void put(T (&a)[NC], int k, T v) {
#pragma unroll
  for (int c = 0; c < NC; c += kChunk)
    if (k >= c && k < c + kChunk) {
#pragma unroll
      for (int q = 0; q < kChunk; ++q)
        if (k == c + q) a[c + q] = v;
    }
}

// ---------------------------------------------------------------- getrf
template <class T, int NC, class Loc>
__global__ void __launch_bounds__(NC, NC == 128 ? 3 : 1)  // 3 blocks per SM: <= 168 registers
getrf_rows_kernel(int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                  index_t count) {
  constexpr int kWarps = NC / 32;
  __shared__ __align__(16) T srow[2][NC];
  __shared__ T sv[2][kWarps];
  __shared__ int sp[2][kWarps];
  const int r = threadIdx.x, lane = r % 32, warp = r / 32;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    T* M = A(b);
    const bool active = r < n;
    const auto Ml = opaque(M);
    const index_t ldl = opaque(lda);
    T a[NC];
#pragma unroll
    for (int j = 0; j < NC; ++j) a[j] = (active && j < n) ? Ml[r + index_t(j) * ldl] : T(0);
    int pos = r;  // position of this row in the pivoted order
    int my_ipiv = r + 1;
    int linfo = 0;
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
      const int buf = k & 1;
      const T ak = pick(a, k);
      T v = (active && pos >= k) ? pivot_magnitude(ak) : T(-2);
      int p = pos;
#pragma unroll
      for (int off = 16; off > 0; off /= 2) {
        const T ov = __shfl_xor_sync(0xffffffffu, v, off);
        const int op = __shfl_xor_sync(0xffffffffu, p, off);
        if (ov > v || (ov == v && op < p)) { v = ov; p = op; }
      }
      if (lane == 0) { sv[buf][warp] = v; sp[buf][warp] = p; }
      __syncthreads();
      v = sv[buf][0];
      p = sp[buf][0];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) {
        const T ov = sv[buf][w];
        const int op = sp[buf][w];
        if (ov > v || (ov == v && op < p)) { v = ov; p = op; }
      }
      const bool winner = active && pos == p;  // exactly one thread
      T* row = srow[buf];
      if (winner) {
#pragma unroll
        for (int c = 0; c < NC; c += kChunk)
          if (c + kChunk > k) store4_aligned(row + c, a + c);
      }
      __syncthreads();
      const T piv = row[k];
      if (r == k) my_ipiv = p + 1;
      if (winner) pos = k;
      else if (pos == k) pos = p;
      const bool nonzero = piv != T(0);
      if (!nonzero && linfo == 0) linfo = k + 1;
      if (nonzero && pos > k) {
        const T l = ak / piv;
#pragma unroll
        for (int c = 0; c < NC; c += kChunk) {
          if (c + kChunk > k + 1) {  // uniform: the chunk holds a column > k
            T u[kChunk];
            load4_aligned(row + c, u);
#pragma unroll
            for (int q = 0; q < kChunk; ++q)
              if (c + q > k) a[c + q] -= l * u[q];
          }
        }
        put(a, k, l);
      }
    }
    if (active) {
      T* const Ms = opaque(M);
      const index_t lds = opaque(lda);
#pragma unroll
      for (int j = 0; j < NC; ++j)
        if (j < n) Ms[pos + index_t(j) * lds] = a[j];
      ipiv[b * n + r] = my_ipiv;
    }
    if (r == 0) info[b] = linfo;
    __syncthreads();  // the next matrix's buffers
  }
}

// ---------------------------------------------------------------- potrf
// Thread r holds row r of L (lower: A(r, j); upper: A(j, r)), j <= r.
template <class T, int NC, bool Upper, class Loc>
__global__ void __launch_bounds__(NC, NC == 128 ? 3 : 1)  // 3 blocks per SM: <= 168 registers
potrf_rows_kernel(int n, Loc A, index_t lda, std::int32_t* info, index_t count) {
  __shared__ __align__(16) T scol[2][NC];
  const int r = threadIdx.x;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    T* M = A(b);
    const bool active = r < n;
    const auto Ml = opaque(M);
    const index_t ldl = opaque(lda);
    T a[NC];
#pragma unroll
    for (int j = 0; j < NC; ++j)
      a[j] = (active && j <= r) ? (Upper ? Ml[j + index_t(r) * ldl] : Ml[r + index_t(j) * ldl])
                                : T(0);
    int linfo = 0;
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
      const int buf = k & 1;
      const T ak = pick(a, k);  // A(r, k) updated by columns < k; 0 for r < k
      T* col = scol[buf];
      col[r] = ak;
      __syncthreads();
      const T d = col[k];
      if (!(d > T(0))) {  // uniform; NaN fails too
        linfo = k + 1;
        break;
      }
      const T s = sqrt(d);
      const T inv = T(1) / s;
      if (r == k) put(a, k, s);
      if (r > k && active) {
        const T l = ak * inv;  // L(r, k)
        const T t = l * inv;   // L(r, k) / s: times A(j, k) gives L(r, k) L(j, k)
#pragma unroll
        for (int c = 0; c < NC; c += kChunk) {
          if (c + kChunk > k + 1) {  // uniform
            T u[kChunk];
            load4_aligned(col + c, u);
#pragma unroll
            for (int q = 0; q < kChunk; ++q)
              if (c + q > k && c + q <= r) a[c + q] -= t * u[q];
          }
        }
        put(a, k, l);
      }
    }
    if (active) {
      T* const Ms = opaque(M);
      const index_t lds = opaque(lda);
#pragma unroll
      for (int j = 0; j < NC; ++j)
        if (j <= r) {
          if (Upper) Ms[j + index_t(r) * lds] = a[j];
          else Ms[r + index_t(j) * lds] = a[j];
        }
    }
    if (r == 0) info[b] = linfo;
    __syncthreads();  // the next matrix's step 0 rewrites scol[0]
  }
}

}  // namespace

template <class T, class Loc>
void getrf_rows(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                index_t count) {
  const unsigned grid = grid_for(count, 1);
  if (n <= 64) getrf_rows_kernel<T, 64><<<grid, 64, 0, s>>>(n, A, lda, ipiv, info, count);
  else if constexpr (sizeof(T) == 4)
    getrf_rows_kernel<T, 128><<<grid, 128, 0, s>>>(n, A, lda, ipiv, info, count);
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class Loc>
void potrf_rows(stream_t s, bool upper, int n, Loc A, index_t lda, std::int32_t* info,
                index_t count) {
  const unsigned grid = grid_for(count, 1);
  if (n <= 64) {
    if (upper) potrf_rows_kernel<T, 64, true><<<grid, 64, 0, s>>>(n, A, lda, info, count);
    else potrf_rows_kernel<T, 64, false><<<grid, 64, 0, s>>>(n, A, lda, info, count);
  } else if constexpr (sizeof(T) == 4) {
    if (upper) potrf_rows_kernel<T, 128, true><<<grid, 128, 0, s>>>(n, A, lda, info, count);
    else potrf_rows_kernel<T, 128, false><<<grid, 128, 0, s>>>(n, A, lda, info, count);
  }
  DLA_CUDA_CHECK_LAUNCH();
}

#define DLA_INST(T)                                                                              \
  template void getrf_rows<T, Strided<T>>(stream_t, int, Strided<T>, index_t, std::int32_t*,     \
                                          std::int32_t*, index_t);                               \
  template void getrf_rows<T, PtrArray<T>>(stream_t, int, PtrArray<T>, index_t, std::int32_t*,   \
                                           std::int32_t*, index_t);                              \
  template void potrf_rows<T, Strided<T>>(stream_t, bool, int, Strided<T>, index_t,              \
                                          std::int32_t*, index_t);                               \
  template void potrf_rows<T, PtrArray<T>>(stream_t, bool, int, PtrArray<T>, index_t,            \
                                           std::int32_t*, index_t);
DLA_INST(float)
DLA_INST(double)
#undef DLA_INST

}  // namespace dla::cuda::batched
