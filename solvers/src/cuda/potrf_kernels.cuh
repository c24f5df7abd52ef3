#pragma once
// Kernels of the blocked Cholesky factorization:
//  - potrf_diag_kernel: factors one diagonal block (order k <= kDiagMax = 256)
//    in a single launch of one thread block (32-wide sub-panels: diagonal
//    32 x 32 factor and the solve of the rows below in registers, trailing
//    update in 32 x 16 register tiles), reporting the first non-positive
//    pivot to the device `info` (global column offset + 1) and doing nothing
//    when an earlier block already failed;
//  - potrf_diag_rows_kernel: the same contract for orders <= 128 (double:
//    64) with the batched row kernel's steps (a thread per row, one barrier
//    per column), faster there;
//  - the progress-flag protocol of the fused panel (potrf_panel.cuh: the
//    panel solve below a diagonal block, running while a diagonal kernel
//    factors it).
// They handle uplo through a "transposed access" flag: the lower case reads
// A(i, j), the upper case reads A(j, i) and works on the transpose. (The
// trailing updates are triangular GEMM launches: dla::cuda::sgemmt.)
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <type_traits>

#include "batched_shift.cuh"
#include "smem_vec.cuh"
#include "dla/core/types.hpp"

// Probe hooks: a probe (experiments/panel-tail, experiments/timeline's
// diag_stamps.cuh) defines these before it includes this header, to record
// the time at the marked points of the diagonal kernels (potrf_diag_tiles.cuh,
// potrf_diag_split.cuh, potrf_diag_leaf.cuh) and the fused panel kernel; by
// default they compile to nothing. A DIAG_STAMP may use the kernels'
// parameter `offset`. DLA_POTRF_LEAF_STAMP marks the phases of every leaf of
// potrf_diag_leaf_kernel (thread 0; experiments/diag-leaf/leaf_probe.cu).
#ifndef DLA_POTRF_DIAG_STAMP
#define DLA_POTRF_DIAG_STAMP(slot) ((void)0)
#endif
#ifndef DLA_POTRF_LEAF_STAMP
#define DLA_POTRF_LEAF_STAMP(slot) ((void)0)
#endif
#ifndef DLA_POTRF_PANEL_STAMP
#define DLA_POTRF_PANEL_STAMP(slot) ((void)0)
#endif

namespace dla::cuda::detail {

// ---------------------------------------------------------------------------
// potrf_diag_kernel: Cholesky of one diagonal block of order k <= kDiagMax in
// ONE launch of ONE thread block (diag_threads<T>(): 384 threads in float,
// 256 in double). Same interface and semantics as potf2 on L(i, j) = upper ?
// A(j, i) : A(i, j): nothing happens when *info != 0 at entry; the first
// pivot that is not > 0 (NaN included) writes *info = offset + column + 1 and
// stops the whole block (uniformly: no thread is left waiting at a barrier).
// Only the stored triangle of the block is read and written.
//
// Blocked right-looking over 32-wide sub-panels p (columns c0 = 32 p ...):
//  - the sub-panel's columns, rows c0..k-1, sit in shared memory P[p & 1]
//    (P[b][q][r] = L(r, c0 + q)): sub-panel 0 is copied from global memory,
//    the later ones are left there by the previous trailing update;
//  - (a) + (b): warps 0..7 own 32 block rows each (lane = row) and hold the
//    row's 32 sub-panel entries in registers. Warp p (the diagonal rows)
//    factors the 32 x 32 diagonal block, right-looking: step c shuffles the
//    pivot from lane c, L(c, c) = piv * rsqrt(piv), the rows below scale by
//    rsqrt(piv), column c goes to shared memory (Lcol; rs = 1 / L(c, c))
//    and every row subtracts its multiple of it from the later columns (the
//    next pivot is shuffled before that update, to keep the chain short).
//    After a __syncthreads, warps p+1..7 (the rows below) run the same steps
//    as a triangular solve x L11^T = a (x_c = a_c rs_c, a_v -= x_c L(v, c)).
//    (A flag hand-off every 4 columns let the solve trail the factorization
//    by a few columns, but racecheck cannot verify flag synchronisation: 20
//    reported hazards on the H200; the barrier version is race-free by
//    construction.) Results go back to P[p & 1];
//  - then the sub-panel is stored (coalesced for both uplo) and (c) all warps
//    update the trailing lower triangle, C -= P P^T, in 32 x 16 register
//    tiles (those of the 32 x 32 tiles on/below the diagonal; only elements
//    i >= j are written): lane = index along A's contiguous dimension
//    (coalesced for both uplo; loaded by cp.async through a per-warp staging
//    area), 16 accumulators along the other, P read from shared memory.
//    Tiles of the next sub-panel's columns go to P[(p+1) & 1] instead of
//    global memory. The trailing matrix stays in global memory (L2-resident
//    at these sizes).
// Loops are rolled with small bodies (the step loop does 4 columns per trip
// and shifts the register row by 4, so all register indices are constants):
// the code stays ~1.5 k instructions (float); unrolled step loops were
// instruction-cache bound in this project (see docs/cholesky.md).
// Shared memory: float 97 KB, double 177 KB (dynamic, opted in by the host).
// ---------------------------------------------------------------------------
constexpr int kDiagMax = 256;  // largest block order potrf_diag_kernel factors

// Threads of potrf_diag_kernel. Warps 0..7 own the rows (kDiagMax / 32); all
// warps do the trailing update. Float: 384 (12 warps, 63 registers each:
// ~24 K registers, so under the look-ahead the block fits on an SM as soon
// as one 128 x 128 GEMM block of the concurrent update (256 x 127 registers)
// retires; 512 threads needed ~37 K, and capping them at 64 registers
// spilled). Double: 256, where the row of 32 doubles plus the step's
// temporaries take 136 registers.
template <class T>
constexpr int diag_threads() { return sizeof(T) == 8 ? 256 : 384; }

template <class T>
struct DiagSmem {
  // Panel row stride: kDiagMax + 16 bytes (rows stay 16-byte aligned).
  static constexpr int kStride = kDiagMax + 16 / int(sizeof(T));
  T P[2][32][kStride];  // sub-panel buffers: P[b][q][r] = L(r, c0 + q)
  T Lcol[32][64];       // Lcol[c][j] = L(c0 + j, c0 + c) for c < j < 32, else 0
  T rs[32];             // rs[c] = 1 / L(c0 + c, c0 + c)
  // Per-warp staging of a trailing-update tile: stage[warp][v][lane].
  T stage[diag_threads<T>() / 32][16][32];
};

template <class T>
constexpr std::size_t potrf_diag_smem_bytes() { return sizeof(DiagSmem<T>); }

template <class T>
__device__ inline T rsqrt_t(T x);
template <>
__device__ inline float rsqrt_t<float>(float x) { return rsqrtf(x); }  // <= 2 ulp
template <>
__device__ inline double rsqrt_t<double>(double x) { return rsqrt(x); }  // <= 1 ulp

// 16 bytes of shared memory (16-byte aligned) into o[0 .. 16 / sizeof(T)).
__device__ inline void ld16(const float* p, float* o) {
  const float4 v = *reinterpret_cast<const float4*>(p);
  o[0] = v.x;
  o[1] = v.y;
  o[2] = v.z;
  o[3] = v.w;
}
__device__ inline void ld16(const double* p, double* o) {
  const double2 v = *reinterpret_cast<const double2*>(p);
  o[0] = v.x;
  o[1] = v.y;
}

// Progress word for potrf_panel_kernel (may be null): thread 0 sets it to
// `flag_base` at entry; after sub-panel p is stored, every warp adds 1 (so it
// reaches flag_base + (p + 1) * warps); an early exit or a failed pivot adds
// kPanelFlagDone, which satisfies every wait of this block column.
constexpr int kPanelFlagDone = 1000;
constexpr int kPanelFlagStep = 1024;  // flag_base distance between block columns
// The release value must pass every wait of its block column (at most
// kDiagMax / 32 sub-panels of diag_threads / 32 increments) and stay below
// the next block column's base.
static_assert((kDiagMax / 32) * (diag_threads<float>() / 32) < kPanelFlagDone &&
                  (kDiagMax / 32) * (diag_threads<double>() / 32) < kPanelFlagDone &&
                  kPanelFlagDone < kPanelFlagStep,
              "panel flag protocol constants");

__device__ inline void panel_flag_release(int* flag, int flag_base) {
  if (flag != nullptr) atomicMax(flag, flag_base + kPanelFlagDone);
}

template <class T>
__global__ void __launch_bounds__(diag_threads<T>())
    potrf_diag_kernel(T* A, index_t lda, int k, bool upper, int* info, index_t offset,
                      int* flag, int flag_base) {
  using Smem = DiagSmem<T>;
  constexpr int VN = 16 / int(sizeof(T));  // elements per 16-byte vector
  constexpr int kThreads = diag_threads<T>(), kWarps = kThreads / 32;
  constexpr int BW = 16;  // trailing-update tile: 32 (lanes) x BW (accumulators)
  constexpr unsigned kFull = 0xffffffffu;
  static_assert(sizeof(Smem) % 16 == 0 && offsetof(Smem, Lcol) % 16 == 0 &&
                    offsetof(Smem, rs) % 16 == 0 && offsetof(Smem, stage) % 16 == 0,
                "diag smem layout: 16-byte aligned members");
  static_assert(kDiagMax / 32 <= kWarps, "one row-owning warp per 32 rows");
  extern __shared__ __align__(16) unsigned char diag_smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(diag_smem_raw);
  __shared__ int s_fail;  // 1 after a failed pivot (read after a barrier)

  // The panel kernel may launch now (programmatic dependent launch): it
  // follows this kernel's progress through `flag`, not through completion.
  asm volatile("griddepcontrol.launch_dependents;");
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (flag != nullptr && tid == 0) atomicExch(flag, flag_base);
  if (*info != 0) {  // an earlier minor failed: the factorization stopped there
    if (tid == 0) panel_flag_release(flag, flag_base);
    return;
  }
  // A(f, s): f runs along A's contiguous dimension. L(i, j) = upper ? A(j, i) : A(i, j).
  auto at = [=](int f, int s) { return A + f + index_t(s) * lda; };

  if (tid == 0) s_fail = 0;
  {  // P[1], Lcol, rs := 0 (they follow P[0]; stage needs no initialisation)
    uint4* z = reinterpret_cast<uint4*>(&sm.P[1][0][0]);
    constexpr int nz = int((offsetof(Smem, stage) - sizeof(sm.P[0])) / 16);
#pragma unroll 1
    for (int e = tid; e < nz; e += kThreads) z[e] = make_uint4(0, 0, 0, 0);
  }
  // Sub-panel 0 into P[0] (zeros outside the stored triangle and below row k).
#pragma unroll 1
  for (int e = tid; e < 32 * kDiagMax; e += kThreads) {
    int q, r;  // consecutive threads along A's contiguous dimension
    if (upper) {
      q = e % 32;
      r = e / 32;
    } else {
      r = e % kDiagMax;
      q = e / kDiagMax;
    }
    const bool ok = r < k && q <= r;
    cp_async_elem(&sm.P[0][q][r], ok ? (upper ? at(q, r) : at(r, q)) : A, ok);
  }
  cp_async_wait_all();
  __syncthreads();
  // Invariant: rows >= k of both P buffers stay zero (nothing writes them).

  const int npanels = (k + 31) / 32;
  for (int p = 0; p < npanels; ++p) {
    const int c0 = 32 * p, w = min(32, k - c0), c1 = c0 + 32;
    T(*cur)[Smem::kStride] = sm.P[p & 1];
    T(*nxt)[Smem::kStride] = sm.P[(p + 1) & 1];

    // ---- (a) the diagonal block (warp p) and (b) the rows below it (warps
    // p+1..7; they exist only when w == 32).
    // Phase 0: the diagonal warp factors the 32 x 32 block and publishes
    // every column (Lcol, rs); a __syncthreads; phase 1: the warps below
    // solve their rows with them. (A flag hand-off every 4 columns overlapped
    // the two phases, but compute-sanitizer racecheck cannot see that kind of
    // synchronisation; the barrier keeps the kernel provably race-free.)
#pragma unroll 1
    for (int phase = 0; phase < 2; ++phase) {
    if (phase == 1) {
      __syncthreads();
      if (s_fail) break;  // uniform: written before the barrier
    }
    if (warp < kDiagMax / 32 && (phase == 0 ? warp == p : warp > p) && 32 * warp < k) {
      const bool diag = warp == p;
      const int r = 32 * warp + lane;  // block row of this lane
      // a[v] = L(r, c0 + cb + v) before step group cb (shifted by 4 per
      // group). Diagonal warp: rows >= k (lanes >= w) are identity rows, so
      // that padded steps c >= w see pivot 1 and change nothing. Entries
      // above the diagonal are stale but only reach columns that are dead
      // for their row: they never feed a pivot, an output or Lcol.
      const bool ident = diag && lane >= w;
      T a[32];
#pragma unroll
      for (int v = 0; v < 32; ++v) a[v] = ident && v == lane ? T(1) : cur[v][r];
      // Diagonal warp: the pivot A(c, c) of the next step and its rsqrt.
      int fail_c = -1;  // first failing column (warp-uniform)
      T piv = T(1), rsc = T(1);
      if (diag) {
        piv = __shfl_sync(kFull, a[0], 0);
        rsc = rsqrt_t(piv);
      }
      const int nsteps = diag ? w : 32;
#pragma unroll 1
      for (int cb = 0; cb < nsteps; cb += 4) {
        T rsv[4];
        if (!diag) {  // phase 1: every column of the block is published
#pragma unroll
          for (int j = 0; j < 4; j += VN) ld16(&sm.rs[cb + j], &rsv[j]);
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int c = cb + u;
          T l;  // L(r, c0 + c)
          if (diag) {
            if (!(piv > T(0)) && fail_c < 0) fail_c = c;  // NaN too; uniform
            l = lane > c ? a[u] * rsc : (lane == c ? piv * rsc : T(0));
            sm.Lcol[c][lane] = lane > c ? l : T(0);
            if (lane == 0) sm.rs[c] = rsc;
            if (lane >= c && lane < w) cur[c][r] = l;
            // The next pivot before this step's update (warps issue in
            // order): lane c+1's A(c+1, c+1) needs only its own L(c+1, c),
            // so the chain per column is multiply -> FMA -> shuffle -> rsqrt.
            piv = __shfl_sync(kFull, a[u + 1] - l * l, (c + 1) & 31);
            rsc = rsqrt_t(piv);
            __syncwarp();  // Lcol[c] complete
          } else {
            l = a[u] * rsv[u];
            if (r < k) cur[c][r] = l;
          }
          // a(v) -= L(r, c) L(cb + v, c) for the columns after c; Lcol[c][j]
          // is 0 for j >= 32 (each 16-byte load used at once: fewer live
          // registers in double).
#pragma unroll
          for (int j = 0; j < 32; j += VN) {
            T lc[VN];
            ld16(&sm.Lcol[c][cb + j], lc);
#pragma unroll
            for (int e = 0; e < VN; ++e)
              if (j + e > u) a[j + e] -= l * lc[e];
          }
        }
        if (diag && fail_c >= 0) {  // uniform over the warp
          if (lane == 0) {
            *info = int(offset + c0 + fail_c + 1);
            s_fail = 1;
          }
          break;
        }
#pragma unroll
        for (int v = 0; v < 32; ++v) a[v] = v + 4 < 32 ? a[v + 4] : T(0);
      }
    }
    }  // phase
    __syncthreads();
    if (s_fail) {  // uniform: written before the barrier
      if (tid == 0) panel_flag_release(flag, flag_base);
      return;
    }

    // ---- the sub-panel to global memory (lower: lanes along rows; upper:
    // along the sub-panel's columns).
    if (!upper) {
      for (int q = warp; q < w; q += kWarps)
        for (int r = c0 + q + lane; r < k; r += 32) *at(r, c0 + q) = cur[q][r];
    } else {
      for (int r = c0 + warp; r < k; r += kWarps)
        if (lane < w && c0 + lane <= r) *at(c0 + lane, r) = cur[lane][r];
    }
    if (flag != nullptr) {  // this warp's part of sub-panel p is visible: count it
      __threadfence();
      __syncwarp();
      if (lane == 0) atomicAdd(flag, 1);
    }

    // ---- (c) trailing update C -= P P^T, rows and columns c1..k-1 (w == 32).
    // Items: the 32 x 32 tiles (I, J), I >= J, of the trailing lower
    // triangle, each cut into 32 / BW slices of BW along the second index.
    // Lane = index o along A's contiguous dimension; acc[v] = element
    // (o, b0 + v) of A (lower: L(o, b); upper: L(b, o)).
    if (c1 < k) {
      constexpr int S = 32 / BW;
      const int tb = (k - c1 + 31) / 32, nitems = S * tb * (tb + 1) / 2;
#pragma unroll 1
      for (int t = warp; t < nitems; t += kWarps) {
        const int tile = t / S, slice = t % S;
        int I = 0;
        while ((I + 1) * (I + 2) / 2 <= tile) ++I;
        const int J = tile - I * (I + 1) / 2;
        const int o = c1 + 32 * (upper ? J : I) + lane;
        const int b0 = c1 + 32 * (upper ? I : J) + BW * slice;
        // Stored elements: v in [vlo, vhi) (lower: b <= o; upper: b >= o; both < k).
        int vlo = 0, vhi = 0;
        if (o < k) {
          vlo = upper ? o - b0 : 0;
          vhi = upper ? k - b0 : min(o + 1, k) - b0;
        }
        // The item goes through this lane's column of the warp's staging
        // area: asynchronous copies (compact code, all loads in flight).
        T* stg = &sm.stage[warp][0][lane];
        const T* src = at(o, b0);
#pragma unroll 4
        for (int v = 0; v < BW; ++v, src += lda) {
          const bool ok = v >= vlo && v < vhi;
          cp_async_elem(stg + 32 * v, ok ? src : A, ok);
        }
        cp_async_wait_all();  // own elements only: no warp barrier needed
        T acc[BW];
#pragma unroll
        for (int v = 0; v < BW; ++v) acc[v] = stg[32 * v];
#pragma unroll 2
        for (int q = 0; q < 32; ++q) {
          const T x = cur[q][o];
#pragma unroll
          for (int j = 0; j < BW; j += VN) {
            T y[VN];
            ld16(&cur[q][b0 + j], y);
#pragma unroll
            for (int e = 0; e < VN; ++e) acc[j + e] -= x * y[e];
          }
        }
#pragma unroll
        for (int v = 0; v < BW; ++v) stg[32 * v] = acc[v];
        // One store path (generic pointer): global memory, or for the next
        // sub-panel's columns (J == 0) P[(p + 1) & 1], (i, j) at nxt[j - c1][i].
        T* dst = at(o, b0);
        index_t step = lda;
        if (J == 0) {
          dst = upper ? &nxt[o - c1][b0] : &nxt[b0 - c1][o];
          step = upper ? 1 : Smem::kStride;
        }
#pragma unroll 8
        for (int v = 0; v < BW; ++v, dst += step)
          if (v >= vlo && v < vhi) *dst = stg[32 * v];
      }
    }
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------
// potrf_diag_rows_kernel: the diagonal block of order k <= 128 (float; <= 64
// in double) with the batched row kernel's steps (batched_shift.cuh: one
// thread per row, the row in registers, one block barrier per column), as a
// drop-in for potrf_diag_kernel: same info, offset, flag and uplo contract.
// Single-block latency on the H200 (one launch, idle GPU, event-timed):
// order 64 / 128: 19.2 / 34.1 us, against 31.5 / 62.1 us for
// potrf_diag_kernel, whose sub-panel phases leave most warps waiting at
// barriers (ncu: 69% of stall cycles). Sub-panel progress for the panel
// kernel: after the barrier of step 32 p (columns < 32 p stored by every
// row) thread 0 fences and adds diag_threads<T>() / 32, as the warps of
// potrf_diag_kernel would; the end (or a failed pivot) releases all waits.
template <class T>
constexpr int diag_rows_max() { return sizeof(T) == 4 ? 128 : 64; }

struct SubpanelFlagHook {
  int* flag;
  int unit;
  __device__ __forceinline__ void operator()(int k) const {
    if (flag != nullptr && threadIdx.x == 0 && k > 0 && k % 32 == 0) {
      __threadfence();  // after the barrier: every row's stores of columns < k
      atomicAdd(flag, unit);
    }
  }
};

template <class T, int NC, bool Upper>
__global__ void __launch_bounds__(NC)
    potrf_diag_rows_kernel(T* A, index_t lda, int k, int* info, index_t offset, int* flag,
                           int flag_base) {
  __shared__ __align__(16) T col[2][NC + 4];
  asm volatile("griddepcontrol.launch_dependents;");
  const int r = threadIdx.x;
  if (flag != nullptr && r == 0) atomicExch(flag, flag_base);
  if (*info != 0) {  // an earlier minor failed
    if (r == 0) panel_flag_release(flag, flag_base);
    return;
  }
  const bool active = r < k;
  T a[NC];
#pragma unroll
  for (int j = 0; j < NC; ++j)
    a[j] = (active && j <= r) ? (Upper ? A[j + index_t(r) * lda] : A[r + index_t(j) * lda])
                              : T(0);
  batched::PotrfStep<T, NC, batched::ColumnMajorStore<T, Upper>, SubpanelFlagHook> st{
      col, {A, lda}, a, r, active, k, 0, {flag, diag_threads<T>() / 32}};
  const int warp_end = min(k, (r / 32 + 1) * 32);  // this warp's rows end there
  int kk = 0;
  if (batched::run_phases<NC, NC>(st, warp_end, kk)) st.drain(kk);
  __syncthreads();  // every store done; linfo is the same in every thread
  if (r == 0) {
    if (st.linfo != 0) *info = int(offset + st.linfo);
    __threadfence();
    panel_flag_release(flag, flag_base);
  }
}

}  // namespace dla::cuda::detail
