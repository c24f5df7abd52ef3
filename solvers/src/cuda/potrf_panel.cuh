#pragma once
// potrf_panel_kernel: the fused panel of the look-ahead (the panel solve
// below, upper: right of, a diagonal block, running while a diagonal kernel
// of potrf_kernels.cuh / potrf_diag_tiles.cuh factors it and following its
// progress through the flag word of potrf_kernels.cuh). Float lower panels of
// 16-byte aligned blocks run its broadcast form with a copier warp instead
// (potrf_panel_copier.cuh, session 53).
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/cuda_cp_async.cuh"
#include "potrf_kernels.cuh"
#include "smem_vec.cuh"

namespace dla::cuda::detail {

// ---------------------------------------------------------------------------
// potrf_panel_kernel: the panel solve X = A21 L11^-T (upper: the transpose,
// U12 = U11^-T A12) of a block column WHILE potrf_diag_kernel factors its
// diagonal block L11 (jb <= kDiagMax). It is launched as the diagonal
// kernel's programmatic dependent, so it starts while that kernel runs, and
// follows its progress through the flag word (above) instead of waiting for
// its end: chunk s (columns c0 = 32 s ..) needs row block s of L11 left of
// the diagonal (ready once sub-panels < s are stored) and the 32 x 32
// diagonal block of sub-panel s. So the update of each chunk overlaps the
// diagonal kernel's work on it, and after the diagonal kernel ends only the
// last chunk's 32-step solve remains (it was ~90 us of trsm per block column
// at n = 8192 before). The waiters cannot block the diagonal kernel: it is
// already running when they launch (it triggered the launch).
//
// 256 threads = 64 panel rows x 4 parts; part g of row t owns columns
// c0 + 8 g .. c0 + 8 g + 7 of the chunk in registers b[8]. Per chunk:
//   b := A21(t, chunk)                                  (before any wait)
//   b(j) -= sum_{c < c0} X(t, c) L(c0 + j, c)          (X in shared memory;
//     L's row block s left of the diagonal is there already, see below)
//   wait sub-panel s; copy it (cp.async): its 32 x 32 diagonal block as
//     Ls(s)[c0 + i][j] = L(c0 + j, c0 + i) for j > i (0 else) and rinv[i] :=
//     1 / L(c0 + i, c0 + i), then its rows below into the row blocks s' > s
//   32 steps: x_i = b(i) rinv[i] on its owner, shuffled to the row's 4
//   parts, b(j) -= x_i Ls(s)[c0 + i][j] (zeros make it unconditional;
//   the float default, Bcast below, puts a row's parts in 4 warps and
//   solves by 8-column blocks instead of shuffles)
//   X(t, chunk) := b, in shared memory and global memory
// Each sub-panel is copied once, when the diagonal kernel releases it, and
// its rows below land while the chunk is solved (session 29). Until then
// chunk s waited for sub-panels < s and only then loaded its row block: one
// to three L2 round trips on the panel's own chain, which put the panel a
// chunk behind the diagonal kernel, so that its last update ran after that
// kernel had ended (docs/cholesky-log.md, sessions 28-29).
// Panels wider than 128 (DLA_POTRF_NB > 128, NC = kDiagMax) would need ~160
// KB for the whole lower part of L11 (float); they keep only the current row
// block and load it at the chunk's start, after waiting for sub-panels < s.
// Element (t, c) of the panel is P[t + c ldp] (lower) or P[c + t ldp]
// (upper); L(i, c) is L11[i + c ld] or L11[c + i ld]. L11 is copied only
// after its sub-panel is released (another SM writes it during this kernel),
// so no stale copy of an element is ever read.
constexpr int kPanelRows = 64, kPanelParts = 4, kPanelThreads = kPanelRows * kPanelParts;

// For panels of width jb <= NC (NC = 128 or kDiagMax). Float: 78 KB for NC =
// 128, 103 KB for kDiagMax.
template <class T, int NC>
struct PanelSmem {
  static constexpr int kLld = 32 + 16 / int(sizeof(T));  // 16-byte aligned rows
  static constexpr bool kWhole = NC <= 128;              // all row blocks kept
  static constexpr int kLrows = kWhole ? 32 * (NC / 32) * (NC / 32 + 1) / 2 : NC;
  static constexpr int kXld = kPanelRows + 1;            // conflict-free part stores
  T Ls[kLrows][kLld];  // row block s: lrow(s, c)[j] = L(32 s + j, c), j < 32
  T rinv[32];
  T Xs[NC][kXld];      // Xs[c][row] = X(row, c), solved columns
  // Row block s, column c (c < 32 s + 32): kWhole packs the blocks (block s
  // has 32 (s + 1) columns); otherwise only the current block is held.
  __device__ T* lrow(int s, int c) { return &Ls[kWhole ? 16 * s * (s + 1) + c : c][0]; }
};

template <class T, int NC>
constexpr std::size_t potrf_panel_smem_bytes() { return sizeof(PanelSmem<T, NC>); }

// b(j) -= sum_{c1 <= c < c2} X(row, c) L(32 s + j, c) for the 8 columns j =
// 8 g .. 8 g + 7 of chunk s: its update by solved columns (in Xs) and its
// row block (in Ls).
template <class T, int NC>
__device__ __forceinline__ void panel_update_part(PanelSmem<T, NC>& sm, int s, int c1, int c2,
                                                  int g, int row, T (&b)[8]) {
#pragma unroll 4
  for (int c = c1; c < c2; ++c) {
    const T x = sm.Xs[c][row];
    T l[8];
    const T* lr = sm.lrow(s, c);
    load4_aligned(lr + 8 * g, l);
    load4_aligned(lr + 8 * g + 4, l + 4);
#pragma unroll
    for (int q = 0; q < 8; ++q) b[q] -= x * l[q];
  }
}

// The broadcast layout's solve of chunk s (columns c0 = 32 s ..) in b, part
// g of row `row` (the kernels below): by 8-column blocks gi, part gi solves
// its 8 columns in registers and writes them to Xs; after sync() (a barrier
// of every thread that solves) the later parts apply them.
template <class T, int NC, class Sync>
__device__ __forceinline__ void panel_bcast_solve(PanelSmem<T, NC>& sm, int s, int g, int row,
                                                  T (&b)[8], Sync sync) {
  const int c0 = 32 * s;
#pragma unroll
  for (int gi = 0; gi < 4; ++gi) {
    if (g == gi) {  // warp-uniform
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        const int i = 8 * gi + q;
        b[q] *= sm.rinv[i];
        const T* lr = sm.lrow(s, c0 + i);  // lr[j] = L(c0 + j, c0 + i), j > i
#pragma unroll
        for (int q2 = q + 1; q2 < 8; ++q2) b[q2] -= b[q] * lr[8 * gi + q2];
        sm.Xs[c0 + i][row] = b[q];
      }
    }
    sync();
    if (g > gi) {
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        const int i = 8 * gi + q;
        const T x = sm.Xs[c0 + i][row];
        T l[8];
        const T* lr = sm.lrow(s, c0 + i);
        load4_aligned(lr + 8 * g, l);
        load4_aligned(lr + 8 * g + 4, l + 4);
#pragma unroll
        for (int q2 = 0; q2 < 8; ++q2) b[q2] -= x * l[q2];
      }
    }
  }
}

// Until the progress word reaches target (acquire), sleeping SleepNs between
// polls; one thread polls, the caller makes the others wait.
template <unsigned SleepNs>
__device__ __forceinline__ void panel_flag_poll(const int* flag, int target) {
  int v;
  for (;;) {
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    if (v >= target) break;
    __nanosleep(SleepNs);
  }
}

__device__ inline void panel_wait(const int* flag, int target) {
  if (threadIdx.x == 0) panel_flag_poll<100>(flag, target);
  __syncthreads();
}

// Sub-panel s of L11 (released by the diagonal kernel) into the shared
// copies `sm`, by the block's kPanelThreads threads. First its
// diagonal block (one cp.async group: on the critical path, the last chunk
// runs after the diagonal kernel): entries above the diagonal and outside
// the block are zeros, stored directly; each diagonal entry is turned into
// rinv and a zero by the thread that copied it, once its own copy has
// landed. Then (whole layout) its rows below, into row blocks s + 1 .. (a
// second group, in flight during the solve): read by the later chunks'
// updates, after the barrier that ends the chunk; the caller waits for it
// with cp_async_wait<0>() before that barrier. Ends with a barrier, after
// which the diagonal block and rinv are complete.
// lel(i, c): the address of L(i, c); block_ji(e, w, j, i): element e of a
// 32 x w block in A's order (the kernel's own helpers).
template <class T, int NC, class Lel, class BlockJi>
__device__ inline void panel_copy_subpanel(PanelSmem<T, NC>& sm, Lel lel, BlockJi block_ji,
                                           int jb, int s) {
  const int tid = threadIdx.x, c0 = 32 * s, nchunks = (jb + 31) / 32;
  constexpr int kPer = 32 * 32 / kPanelThreads;
  bool mine[kPer];  // this thread copied diagonal entry u
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    int j, i;
    block_ji(tid + u * kPanelThreads, 32, j, i);
    const bool in = c0 + j < jb && c0 + i < jb && j >= i;
    T* dst = sm.lrow(s, c0 + i) + j;
    if (in) cp_async_elem(dst, lel(c0 + j, c0 + i));
    else *dst = T(0);
    mine[u] = i == j;
    if (mine[u] && !in) sm.rinv[i] = T(0);  // past jb: never used
    mine[u] = mine[u] && in;
  }
  cp_async_commit();
  if constexpr (PanelSmem<T, NC>::kWhole) {
    const int below = (nchunks - 1 - s) * 32 * 32;
#pragma unroll 1
    for (int e = tid; e < below; e += kPanelThreads) {
      const int sb = s + 1 + e / (32 * 32);
      int j, i;
      block_ji(e % (32 * 32), 32, j, i);
      const bool in = 32 * sb + j < jb && c0 + i < jb;
      cp_async_elem(sm.lrow(sb, c0 + i) + j, lel(in ? 32 * sb + j : c0, c0 + i), in);
    }
  }
  cp_async_commit();
  cp_async_wait<1>();  // this thread's diagonal-block copies have landed
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    if (!mine[u]) continue;
    int j, i;
    block_ji(tid + u * kPanelThreads, 32, j, i);
    T* dst = sm.lrow(s, c0 + i) + j;
    sm.rinv[i] = T(1) / *dst;
    *dst = T(0);
  }
  __syncthreads();
}

// Ahead (NC = 128 only; the default since session 30, DLA_POTRF_PANEL_AHEAD=0
// for the left-looking order; session 29 measured its tail at 3.8 us against
// 6.1 and spotrf 4096 2.4% faster): the same steps in right-looking order. All chunks of the row
// are held in registers from the start, and right after chunk s is solved its
// 32 columns are applied to every later chunk; so when the diagonal kernel
// releases sub-panel s + 1, chunk s + 1 needs no update, and after the last
// release only the last chunk's copy and solve remain. (Left-looking, chunk
// 3's update of 96 columns starts only after chunk 2 is solved, and it ends
// after the diagonal kernel has ended: the 6 us tail measured in session 29.)
// Rolled (with Ahead; the float default since session 35, potrf.cu's
// panel_rolled_enabled): the same right-looking order in a loop over the
// chunks instead of one unrolled copy per chunk, the registers of the later
// chunks shifted down after each, so that every index stays static. ptxas:
// float 30 KB of code and 78 registers (unrolled: 89 KB, 83). Written in
// session 34 to test whether the panel's 13-17 us tail beside the bulk update
// was instruction fetch; session 35 measured that it is not (the panel lags
// through all its chunks there), but the rolled form is still ~1% faster
// end to end (docs/cholesky-log.md, session 35).
// Bcast (with Rolled; the float default since session 37, potrf.cu's
// panel_bcast_enabled): the 32 lanes of a warp hold 32 rows of one part
// (warp w: part w % 4, rows 32 (w / 4) ..), so that every load of L in the
// updates and the solve is a broadcast (1 shared-memory wavefront, against
// 4 when a warp's lanes cover 4 parts). Session 36 measured the updates
// bound by those wavefronts: 9 per warp and column, ~1.25 us per 32-column
// update. The solve then cannot shuffle x_i among a row's parts (they are
// in 4 warps): it goes by 8-column blocks, part gi solving its 8 columns in
// registers and writing them to Xs, a barrier, the later parts applying them
// (4 barriers per chunk instead of 32 shuffles). Measured in session 37
// (stamps at n = 4096, late steps): the updates after chunk 0 2.3-2.6 us
// instead of 3.5, the solve as long as the shuffled one (~1.3 us of
// arithmetic); spotrf 4096 -2%, 8192 -2%, 16384 -2%. A solve by two warps,
// a thread per row with the 32 columns in registers, took 2.3 us per chunk
// and spotrf 4096 5% longer (docs/cholesky-log.md, session 37; not kept).
template <class T, int NC, bool Ahead = false, bool Rolled = false, bool Bcast = false>
__global__ void __launch_bounds__(kPanelThreads)
    potrf_panel_kernel(const T* L11, T* P, index_t ld, int jb, index_t r, bool upper,
                       const int* flag, int flag_base) {
  using Smem = PanelSmem<T, NC>;
  static_assert(!Ahead || Smem::kWhole, "the right-looking order needs all row blocks");
  static_assert(!Rolled || Ahead, "the rolled form is of the right-looking order");
  static_assert(!Bcast || Rolled, "the broadcast layout is of the rolled form");
  static_assert(kPanelParts == 4 && kPanelRows == 64, "the thread layouts below");
  constexpr int kWarpsDiag = diag_threads<T>() / 32;  // flag increments per sub-panel
  extern __shared__ __align__(16) unsigned char panel_smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(panel_smem_raw);
  const int tid = threadIdx.x, lane = tid & 31;
  // Default: 8 rows per warp, 4 parts each (a row's parts in 4 adjacent
  // lanes); Bcast: 32 rows per warp, one part.
  const int g = Bcast ? (tid >> 5) & 3 : lane & 3;
  const int row = Bcast ? (tid >> 7) * 32 + lane : (tid >> 5) * 8 + (lane >> 2);
  const index_t t = index_t(blockIdx.x) * kPanelRows + row;
  const bool live = t < r;
  auto pel = [=](int c) { return upper ? P + c + t * ld : P + t + index_t(c) * ld; };
  auto lel = [=](int i, int c) { return upper ? L11 + c + index_t(i) * ld : L11 + i + index_t(c) * ld; };
  // Element e of a 32 x w block of L (rows i0 + j, columns c1 + i), in the
  // order contiguous in A along the warp.
  auto block_ji = [=](int e, int w, int& j, int& i) {
    if (upper) { i = e % w; j = e / w; } else { j = e % 32; i = e / 32; }
  };
  const int nchunks = (jb + 31) / 32;

  // A21's entries of this thread's columns in chunk s.
  auto load_chunk = [&](int s, T (&b)[8]) {
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int c = 32 * s + 8 * g + q;
      b[q] = live && c < jb ? *pel(c) : T(0);
    }
  };
  // b(j) -= sum_{c1 <= c < c2} X(t, c) L(32 s + j, c): chunk s's update with
  // solved columns (in Xs) and its row block (in Ls).
  auto update = [&](int s, int c1, int c2, T (&b)[8]) {
    panel_update_part(sm, s, c1, c2, g, row, b);
  };
  // Waits for sub-panel s and solves chunk s in b: X(t, chunk) := b, in
  // shared memory and global memory; ends with a barrier, after which Xs and
  // the row blocks of the later chunks hold sub-panel s's part.
  auto solve_chunk = [&](int s, T (&b)[8]) {
    const int c0 = 32 * s;
    panel_wait(flag, flag_base + (s + 1) * kWarpsDiag);
    DLA_POTRF_PANEL_STAMP(3 + 5 * s);
    // The last chunk: the next kernel on the stream (the next block column's
    // update, a programmatic dependent that waits for this grid to finish)
    // may launch now and so be resident when this kernel ends.
    if (s == nchunks - 1) asm volatile("griddepcontrol.launch_dependents;");
    // Sub-panel s into the shared copies (its rows below stay in flight).
    panel_copy_subpanel(sm, lel, block_ji, jb, s);
    DLA_POTRF_PANEL_STAMP(4 + 5 * s);
    if constexpr (Bcast) {
      // By 8-column blocks gi: its part solves them in registers (the same
      // FMAs, in the same order, as the shuffled steps below) and writes
      // them to Xs; after a barrier the later parts apply them.
      panel_bcast_solve(sm, s, g, row, b, [] { __syncthreads(); });
    } else {
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        const int gi = i / 8, qi = i % 8;
        T x = __shfl_sync(0xffffffffu, b[qi] * sm.rinv[i], (lane & ~3) | gi);
        if (g == gi) b[qi] = x;
        T l[8];
        const T* lr = sm.lrow(s, c0 + i);
        load4_aligned(lr + 8 * g, l);
        load4_aligned(lr + 8 * g + 4, l + 4);
#pragma unroll
        for (int q = 0; q < 8; ++q) b[q] -= x * l[q];
      }
    }
    DLA_POTRF_PANEL_STAMP(24 + s);  // the solve's arithmetic done
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int c = c0 + 8 * g + q;
      if constexpr (!Bcast) sm.Xs[c][row] = b[q];  // Bcast: written by the blocks above
      if (live && c < jb) *pel(c) = b[q];
    }
    cp_async_wait<0>();  // the rows below (the next chunks' updates)
    __syncthreads();     // Xs and the row blocks complete; rinv is refilled next chunk
    DLA_POTRF_PANEL_STAMP(5 + 5 * s);
  };

  DLA_POTRF_PANEL_STAMP(0);
  if constexpr (Ahead) {
    constexpr int kChunks = NC / 32;
    T acc[kChunks][8];
#pragma unroll
    for (int s = 0; s < kChunks; ++s) load_chunk(s, acc[s]);
    if constexpr (Rolled) {
      // acc[d] holds chunk s + d.
#pragma unroll 1
      for (int s = 0; s < nchunks; ++s) {
        DLA_POTRF_PANEL_STAMP(2 + 5 * s);
        solve_chunk(s, acc[0]);
#pragma unroll
        for (int d = 1; d < kChunks; ++d)
          if (s + d < nchunks) update(s + d, 32 * s, 32 * s + 32, acc[d]);
#pragma unroll
        for (int d = 0; d + 1 < kChunks; ++d)
#pragma unroll
          for (int q = 0; q < 8; ++q) acc[d][q] = acc[d + 1][q];
      }
    } else {
#pragma unroll
      for (int s = 0; s < kChunks; ++s) {
        if (s < nchunks) {
          DLA_POTRF_PANEL_STAMP(2 + 5 * s);
          solve_chunk(s, acc[s]);
#pragma unroll
          for (int s2 = s + 1; s2 < kChunks; ++s2)
            if (s2 < nchunks) update(s2, 32 * s, 32 * s + 32, acc[s2]);
        }
      }
    }
  } else {
#pragma unroll 1
    for (int s = 0; s < nchunks; ++s) {
      const int c0 = 32 * s;
      T b[8];
      load_chunk(s, b);
      if (!Smem::kWhole && s > 0) {
        // Row block s of L left of the diagonal (32 x c0), once sub-panels < s
        // are stored; rows past jb are zero-filled (the source is not read;
        // its address is clamped into the block all the same).
        panel_wait(flag, flag_base + s * kWarpsDiag);
        DLA_POTRF_PANEL_STAMP(1 + 5 * s);
#pragma unroll 1
        for (int e = tid; e < 32 * c0; e += kPanelThreads) {
          int j, c;
          block_ji(e, c0, j, c);
          const bool in = c0 + j < jb;
          cp_async_elem(sm.lrow(s, c) + j, lel(in ? c0 + j : jb - 1, c), in);
        }
        cp_async_commit();
        cp_async_wait<0>();
        __syncthreads();
        DLA_POTRF_PANEL_STAMP(20 + s);  // row block s loaded (s = 1 .. 3: slots 21 .. 23)
      }
      update(s, 0, c0, b);
      DLA_POTRF_PANEL_STAMP(2 + 5 * s);
      solve_chunk(s, b);
    }
  }
}

}  // namespace dla::cuda::detail
