// Batched getrf/potrf for 32 < n <= NC (NC = 64, or 128 in FP32): one block
// of ceil(n / 32) warps per matrix, thread r holds row r of the matrix in NC
// registers.
//
// Shifted registers (batched_shift.cuh): column k is always a[0], so no
// register is picked by a run-time index. The column loop runs in phases of
// shrinking compile-time width W (NC, 3NC/4, NC/2, NC/4): a phase runs the
// steps whose live width fits W, so a thread does at most W FMAs per step and
// the average is ~5/8 of NC instead of NC.
//
// Values that are final leave the registers:
//   getrf: the multiplier l of row r at step k goes to a shared-memory copy
//          of the matrix, M(r, k) (rows in their original order, so thread r
//          writes row r: conflict-free with an odd row pitch); the pivot row
//          (U row k) is copied into M by all threads from the broadcast
//          buffer. Lazy row swaps: each thread tracks the position of its
//          row in the pivoted order; at the end row r of M is written to row
//          pos(r) of A, once.
//   potrf: L(r, k) is stored to A directly (no pivoting: rows stay put).
//
// One block barrier per column:
//   getrf: every warp finds its best candidate (largest |a[0]|, ties to the
//          lowest position, NaN below every number: the host's rule) with
//          two redux.sync (FP32; shuffles in FP64), the candidate lane
//          publishes its key, position and whole live row; barrier; every
//          thread picks the best of the <= 4 warp candidates and reads the
//          pivot row from that warp's buffer (128-bit loads).
//   potrf: PotrfStep (batched_shift.cuh).
// Buffers written before a barrier alternate by column parity, so a buffer is
// rewritten only after every thread has passed a later barrier.
//
// Tried and dropped (H200, getrf 10000 x 64): one warp per matrix with two
// rows per thread (half the per-step bookkeeping per row, no cross-warp
// exchange, 12 warps per SM at 168 registers): 0.465 ms, the same as these
// two-warp blocks (0.469 ms in the same run).
#include "batched_common.cuh"
#include "batched_shift.cuh"
#include "smem_vec.cuh"
#include "dla/core/cuda_check.hpp"

namespace dla::cuda::batched {
namespace {

using detail::load4_aligned;
using detail::store4_aligned;

// ---------------------------------------------------------------- getrf
template <class T, int NC>
struct GetrfShared {
  using Key = decltype(pivot_key(T(0), true));
  static constexpr int kWarps = NC / 32;
  __align__(16) T cand[2][kWarps][NC];  // each warp's candidate row, live part
  Key key[2][kWarps];
  int pos[2][kWarps];
  int row[2][kWarps];  // the candidate's original row
};

template <class T, int NC>
struct GetrfStep {
  GetrfShared<T, NC>& sh;
  T* M;     // shared copy of the factors, rows in original order
  int ldm;  // its (odd) row pitch
  T (&a)[NC];
  int n, r, lane, warp, nwarps;
  bool active;
  int pos;      // position of row r in the pivoted order
  int my_ipiv;  // ipiv[r] (1-based), recorded at step r
  int linfo;

  template <int W>
  __device__ __forceinline__ bool step(int k) {
    const int buf = k & 1;
    const bool live = active && pos >= k;
    typename GetrfShared<T, NC>::Key wkey;
    int wpos;
    warp_pivot(pivot_key(a[0], live), pos, wkey, wpos);
    if (lane == 0) {
      sh.key[buf][warp] = wkey;
      sh.pos[buf][warp] = wpos;
    }
    if (live && pos == wpos) {  // this warp's candidate
      sh.row[buf][warp] = r;
#pragma unroll
      for (int c = 0; c < W; c += 4) store4_aligned(&sh.cand[buf][warp][c], a + c);
    }
    __syncthreads();
    auto bkey = sh.key[buf][0];
    int bpos = sh.pos[buf][0], bw = 0;
#pragma unroll
    for (int w = 1; w < GetrfShared<T, NC>::kWarps; ++w) {
      if (w >= nwarps) break;
      const auto kw = sh.key[buf][w];
      const int pw = sh.pos[buf][w];
      if (kw > bkey || (kw == bkey && pw < bpos)) {
        bkey = kw;
        bpos = pw;
        bw = w;
      }
    }
    const T* u = sh.cand[buf][bw];  // u[c] = U(k, k + c)
    const T piv = u[0];
    if (r < n - k) M[sh.row[buf][bw] * ldm + k + r] = u[r];  // U row k, all threads
    if (r == k) my_ipiv = bpos + 1;
    const bool winner = live && pos == bpos;
    if (winner) pos = k;
    else if (pos == k) pos = bpos;  // lazy swap: the row at position k takes the winner's
    const bool nonzero = piv != T(0);
    if (!nonzero && linfo == 0) linfo = k + 1;
    // Zero pivot: the column below is zero (or NaN), nothing to eliminate;
    // the column stays as it is.
    const bool elim = live && !winner;
    const Divider<T> div(piv);  // LAPACK's scaling by 1/piv (batched_common.cuh)
    T l = T(0);
    if (elim && nonzero) l = div(a[0]);
    if (elim) M[r * ldm + k] = nonzero ? l : a[0];
#pragma unroll
    for (int c = 0; c < W; c += 4) {
      T v[4];
      load4_aligned(u + c, v);
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (c + q >= 1) a[c + q - 1] = a[c + q] - l * v[q];
    }
    return true;
  }
};

// Blocks per SM the register budget must allow: FP32 NC = 128: 3 (<= 168
// registers); NC = 64: getrf 8 (<= 128; at 10 ptxas spills in the step
// loop), potrf 10 (<= 102, no spills); FP64 (NC = 64): no bound.
template <class T, int NC, bool Potrf>
constexpr int rows_min_blocks() {
  return sizeof(T) == 8 ? 1 : (NC == 128 ? 3 : (Potrf ? 10 : 8));
}

template <class T, int NC, class Loc>
__global__ void __launch_bounds__(NC, rows_min_blocks<T, NC, false>())
getrf_rows_kernel(int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                  index_t count) {
  __shared__ GetrfShared<T, NC> sh;
  extern __shared__ __align__(16) unsigned char rows_smem[];
  T* M = reinterpret_cast<T*>(rows_smem);
  const int ldm = n | 1;
  const int r = threadIdx.x;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    T* G = A(b);
    const bool active = r < n;
    T a[NC];
    {
      Walk<const T> w{opaque(G) + r, lda};  // A(r, 0), A(r, 1), ...
#pragma unroll
      for (int j = 0; j < NC; ++j) {
        const T* q = w.next();
        a[j] = (active && j < n) ? *q : T(0);
      }
    }
    GetrfStep<T, NC> st{sh, M, ldm, a, n, r, r % 32, r / 32, int(blockDim.x / 32), active, r, r + 1, 0};
    int k = 0;
    run_phases<NC, NC>(st, n, k);
    __syncthreads();  // M complete
    if (active) {
      Walk<T> w{opaque(G) + st.pos, lda};
      const T* m = M + r * ldm;
#pragma unroll 4
      for (int j = 0; j < n; ++j) *w.next() = m[j];
      ipiv[b * n + r] = st.my_ipiv;
    }
    if (r == 0) info[b] = st.linfo;
    __syncthreads();  // M and the buffers are reused by the next matrix
  }
}

// ---------------------------------------------------------------- potrf

template <class T, int NC, bool Upper, class Loc>
__global__ void __launch_bounds__(NC, rows_min_blocks<T, NC, true>())
potrf_rows_kernel(int n, Loc A, index_t lda, std::int32_t* info, index_t count) {
  __shared__ __align__(16) T col[2][NC + 4];
  const int r = threadIdx.x;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    T* G = A(b);
    const bool active = r < n;
    T a[NC];
    {
      // Lower: A(r, 0), A(r, 1), ...; upper: A(0, r), A(1, r), ... (column r).
      Walk<const T> w = Upper ? Walk<const T>{opaque(G) + index_t(r) * lda, 1}
                              : Walk<const T>{opaque(G) + r, lda};
#pragma unroll
      for (int j = 0; j < NC; ++j) {
        const T* q = w.next();
        a[j] = (active && j <= r) ? *q : T(0);
      }
    }
    PotrfStep<T, NC, ColumnMajorStore<T, Upper>> st{col, {opaque(G), opaque(lda)}, a, r, active, n, 0};
    const int warp_end = min(n, (r / 32 + 1) * 32);  // this warp's rows end there
    int k = 0;
    if (run_phases<NC, NC>(st, warp_end, k)) st.drain(k);
    if (r == 0) info[b] = st.linfo;
    __syncthreads();  // the next matrix's step 0 rewrites col[0]
  }
}

template <class T>
std::size_t getrf_rows_smem(int n) {
  return std::size_t(n) * std::size_t(n | 1) * sizeof(T);
}

// Threads per block: the warps that hold rows (the register width NC may be
// larger than n).
int warps_for(int n) { return (n + 31) / 32; }

}  // namespace

template <class T, class Loc>
void getrf_rows(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                index_t count) {
  const unsigned grid = grid_for(count, 1);
  const std::size_t smem = getrf_rows_smem<T>(n);
  const int threads = warps_for(n) * 32;
  if (n <= 64) {
    auto k = getrf_rows_kernel<T, 64, Loc>;
    allow_smem(k, smem);
    k<<<grid, threads, smem, s>>>(n, A, lda, ipiv, info, count);
  } else if constexpr (sizeof(T) == 4) {
    auto k = getrf_rows_kernel<T, 128, Loc>;
    allow_smem(k, smem);
    k<<<grid, threads, smem, s>>>(n, A, lda, ipiv, info, count);
  }
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T, class Loc>
void potrf_rows(stream_t s, bool upper, int n, Loc A, index_t lda, std::int32_t* info,
                index_t count) {
  const unsigned grid = grid_for(count, 1);
  const int threads = warps_for(n) * 32;
  if (n <= 64) {
    if (upper) potrf_rows_kernel<T, 64, true><<<grid, threads, 0, s>>>(n, A, lda, info, count);
    else potrf_rows_kernel<T, 64, false><<<grid, threads, 0, s>>>(n, A, lda, info, count);
  } else if constexpr (sizeof(T) == 4) {
    if (upper) potrf_rows_kernel<T, 128, true><<<grid, threads, 0, s>>>(n, A, lda, info, count);
    else potrf_rows_kernel<T, 128, false><<<grid, threads, 0, s>>>(n, A, lda, info, count);
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
