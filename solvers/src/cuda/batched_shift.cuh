#pragma once
// Shifted-register factorization steps shared by the batched register kernels
// (batched_rows.cu: whole matrices of order <= 128; batched_blocked.cu: the
// 32-column panels of larger matrices).
//
// A thread holds one row; at step k its live values are columns k, k+1, ...
// of that row in a[0], a[1], ...: column k is always a[0] and the rank-1
// update shifts as it goes, a[c] = a[c+1] - l * u[c+1]. No register is ever
// picked by a run-time index (registers cannot be indexed at run time; the
// first row kernel chose column k with a chain of uniform branches, ~570
// instructions per thread per column at n = 128). Values that are final leave
// the registers through a caller's store.
#include <cuda_runtime.h>

#include "batched_common.cuh"
#include "smem_vec.cuh"

namespace dla::cuda::batched {

// ---------------------------------------------------------------- phases
// Runs step<W>(k) for k = k0, ..., end - 1: width W while the live width
// end - k needs it, then the next phase with W - NC/4 (end: the columns to
// factor, or for Cholesky the end of the warp's rows, so each warp narrows on
// its own). `step` returns false to stop the factorization (a failed
// Cholesky minor); run_phases then returns false too.
//
// Every thread of a warp runs the same straight-line update (rows that have
// nothing to eliminate shift with a zero multiplier): a branch around it
// would make the compiler shift the registers back into place with one move
// per value where the two paths meet (it did: 64 MOVs per step in getrf).
template <int NC, int W, class Step>
__device__ __forceinline__ bool run_phases(Step& st, int end, int& k) {
  constexpr int Wn = W - NC / 4;
  const int stop = Wn > 0 ? end - Wn : end;  // k < stop: end - k > Wn
#pragma unroll 1
  for (; k < stop; ++k)
    if (!st.template step<W>(k)) return false;
  if constexpr (Wn > 0) return run_phases<NC, Wn>(st, end, k);
  return true;
}

// ---------------------------------------------------------------- Cholesky
// Thread r holds row r of L (rows and columns relative to the factored
// block), live columns k..min(r, ncols - 1) at step k in a[0..]; slots right
// of the diagonal (or of the last column) are updated without tests and never
// stored. Per step one block barrier: every live row publishes its unscaled
// A(r, k) at an offset that makes the reads aligned, then every row updates
// with L(r,k) L(j,k) = (A(r,k)/s^2) A(j,k), s = sqrt(A(k,k)) by rsqrt (one
// MUFU.RSQ, <= 2 ulp in FP32, instead of sqrt and a division: potrf 2000 x 128
// 0.29 -> 0.23 ms on the H200). `store(i, j, v)` receives every final value
// L(i, j). The two halves of `col` alternate by step parity, so a half is
// rewritten only after every thread has passed a later barrier.
// A PotrfStep store that writes L(i, j) to a column-major matrix (upper:
// U(j, i)).
template <class T, bool Upper>
struct ColumnMajorStore {
  T* G;
  index_t ld;
  __device__ __forceinline__ void operator()(int i, int j, T v) const {
    if (Upper) G[j + index_t(i) * ld] = v;
    else G[i + index_t(j) * ld] = v;
  }
};

// `hook(k)` runs in every thread right after step k's barrier (columns < k
// are stored by then); potrf's diagonal-block kernel counts finished
// 32-column sub-panels with it (potrf_kernels.cuh).
struct NoStepHook {
  __device__ __forceinline__ void operator()(int) const {}
};

template <class T, int NC, class Store, class Hook = NoStepHook>
struct PotrfStep {
  T (*col)[NC + 4];  // col[buf][3 + c] = A(k + c, k), unscaled, c < W
  Store store;
  T (&a)[NC];
  int r;
  bool active;  // r is a row of the block
  int ncols;    // columns to factor
  int linfo;    // 0, or the failed step + 1
  Hook hook{};

  template <int W>
  __device__ __forceinline__ bool step(int k) {
    const int buf = k & 1;
    const bool live = active && r >= k;
    if (live && r - k < W) col[buf][r - k + 3] = a[0];  // rows read by some live slot
    __syncthreads();
    hook(k);
    const T d = col[buf][3];
    if (!(d > T(0))) {  // uniform; NaN fails too
      linfo = k + 1;
      if (live)  // leave the partly updated row, as LAPACK does
#pragma unroll
        for (int c = 0; c < W; ++c)
          if (c <= r - k && k + c < ncols) store(r, k + c, a[c]);
      return false;
    }
    const T inv = rsqrt(d);
    const T s = d * inv;
    if (live && r == k) store(k, k, s);
    T t = T(0);  // rows that are not below the diagonal shift with t = 0
    if (live && r > k) {
      const T l = a[0] * inv;  // L(r, k)
      t = l * inv;             // times A(j, k) gives L(r, k) L(j, k)
      store(r, k, l);
    }
#pragma unroll
    for (int c = 0; c + 1 < W; c += 4) {
      T v[4];
      detail::load4_aligned(&col[buf][c + 4], v);  // A(k + c + 1 + q, k)
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (c + q + 1 < W) a[c + q] = a[c + q + 1] - t * v[q];
    }
    return true;
  }

  // A warp whose rows are all finished still takes part in every later
  // step's barrier (and stops with the others at a failed minor).
  __device__ __forceinline__ void drain(int k) {
#pragma unroll 1
    for (; k < ncols; ++k) {
      __syncthreads();
      hook(k);
      if (!(col[k & 1][3] > T(0))) {
        linfo = k + 1;
        return;
      }
    }
  }
};

}  // namespace dla::cuda::batched
