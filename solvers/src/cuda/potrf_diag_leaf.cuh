#pragma once
// potrf_diag_leaf_kernel: the float diagonal block of order m <= 128 of the
// blocked Cholesky, factored in 16-column leaves, each by ONE thread in
// registers. A drop-in for potrf_diag_tiles_kernel (same info, offset,
// progress-flag and uplo contract; potrf_kernels.cuh), opt-in with
// DLA_POTRF_DIAG_LEAF=1 (session 30). MEASURED SLOWER: 32.7 us alone against
// the tile kernel's 31.1, ~2.8 us per leaf against the ~0.8 predicted;
// spotrf 4096 1.60-1.65 ms against 1.53-1.54 (docs/cholesky.md, session 30).
//
// Why: the tile kernel costs ~390 cycles per column (26-28 us per 128-block,
// sessions 16-29): every 4 columns pass two block barriers and two
// single-thread chains (the 4 x 4 diagonal tile, then the 4 x 4 tiles below
// it), ~1100 cycles together. Here one thread factors a whole 16 x 16 leaf:
// its pivot chain is ~40 cycles per column (rsqrt, multiply, FMA) and the
// leaf's ~800 FMAs have enough independent work to issue back to back, so
// the leaf should take ~1000 cycles for 16 columns; the block barriers drop
// to two per 16 columns.
//
// Layout: the block's lower triangle (L(i, j) = upper ? A(j, i) : A(i, j))
// in shared memory, column-major: S[j][i] = L(i, j), columns 16-byte
// aligned. Rows and columns m .. M - 1 (M = m rounded up to 16) are an
// identity block (never stored), so every leaf is 16 wide. Leaf p (columns
// c0 = 16 p ..):
//   A. thread 0 loads the 16 x 16 diagonal block, factors it in registers
//      (rsqrt per pivot), writes L and the reciprocal pivots back;  barrier 1
//   B. one thread per row below (warps 1..4) solves its 16 entries against
//      the leaf (x L^T = a, forward substitution) and stores them, in shared
//      memory and A; warp 0 stores the leaf itself to A;             barrier 2
//      (after every 32 columns: the progress flag, as the tile kernel)
//   C. the trailing lower triangle -= X X^T (k = 16) in 4 x 4 register
//      tiles: warp 0 does the next leaf's 16 x 16 block first (10 tiles,
//      the k range split over two lanes each) and thread 0 goes straight on
//      to A of the next leaf; warps 1..7 do the other tiles meanwhile.
// A failing pivot (not > 0, NaN included) at column k: the leaf's columns
// < k are L, the other columns >= c0 keep their values updated by the
// columns < c0, all of them are stored, and the block stops after barrier 1
// (the blocked LAPACK convention: the trailing part is partly updated).
#include <cuda_runtime.h>

#include "potrf_kernels.cuh"

namespace dla::cuda::detail {

struct DiagLeaf {
  static constexpr int kW = 16;        // leaf width
  static constexpr int kN = 128;       // largest order
  static constexpr int kLd = kN + 4;   // column stride of S (floats): 16-byte aligned
  static constexpr int kThreads = 256;
  static constexpr int kLead = 32;     // lane 0 of warp 1: flag, info, stamps
};

struct DiagLeafSmem {
  float S[DiagLeaf::kN][DiagLeaf::kLd];  // S[j][i] = L(i, j), i >= j
  __align__(16) float rinv[DiagLeaf::kW];  // 1 / L(c0 + q, c0 + q) of the current leaf
  int fail;                              // failed column + 1, or 0
};

constexpr std::size_t potrf_diag_leaf_smem_bytes() { return sizeof(DiagLeafSmem); }

// The 4 x 4 tile of S at rows i0.., columns j0..: acc = X(i0.., q) X(j0.., q)^T
// summed over q in [q0, q1) of the leaf at column c0 (acc[r][c] for row
// i0 + r, column j0 + c).
__device__ __forceinline__ void leaf_tile_product(const DiagLeafSmem& sm, int c0, int q0, int q1,
                                                  int i0, int j0, float (&acc)[4][4]) {
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[r][c] = 0.f;
#pragma unroll 4
  for (int q = q0; q < q1; ++q) {
    float u[4], v[4];
    ld16(&sm.S[c0 + q][i0], u);
    ld16(&sm.S[c0 + q][j0], v);
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[r][c] = fmaf(u[r], v[c], acc[r][c]);
  }
}

// S tile (rows i0.., columns j0..) -= acc.
__device__ __forceinline__ void leaf_tile_subtract(DiagLeafSmem& sm, int i0, int j0,
                                                   const float (&acc)[4][4]) {
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    float4* p = reinterpret_cast<float4*>(&sm.S[j0 + c][i0]);
    float4 w = *p;
    w.x -= acc[0][c];
    w.y -= acc[1][c];
    w.z -= acc[2][c];
    w.w -= acc[3][c];
    *p = w;
  }
}

template <bool Upper>
__global__ void __launch_bounds__(DiagLeaf::kThreads, 1)
    potrf_diag_leaf_kernel(float* A, index_t lda, int m, int* info, index_t offset, int* flag,
                           int flag_base) {
  constexpr int W = DiagLeaf::kW, N = DiagLeaf::kN, NT = DiagLeaf::kThreads;
  extern __shared__ __align__(16) unsigned char diag_leaf_smem_raw[];
  DiagLeafSmem& sm = *reinterpret_cast<DiagLeafSmem*>(diag_leaf_smem_raw);
  // A programmatic dependent of the kernel before it (potrf.cu): wait until
  // that kernel has finished, then let the fused panel kernel launch.
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  if (tid == DiagLeaf::kLead) {
    DLA_POTRF_DIAG_STAMP(0);
    if (flag != nullptr) atomicExch(flag, flag_base);
    sm.fail = 0;
  }
  if (*info != 0) {  // an earlier minor failed
    if (tid == DiagLeaf::kLead) panel_flag_release(flag, flag_base);
    return;
  }
  // Address of L(i, j) in A.
  auto el = [=](int i, int j) { return Upper ? A + j + index_t(i) * lda : A + i + index_t(j) * lda; };
  const int M = (m + W - 1) / W * W;

  // Load: the first leaf's columns by every thread (one cp.async group),
  // then, while thread 0 factors the first leaf, the rest by warps 1..7.
  // (f, s): f runs along A's contiguous dimension (lower: rows, upper: columns).
  auto load = [&](int i, int j) {
    if (i < j || i >= M || j >= M) return;
    float* dst = &sm.S[j][i];
    if (i < m && j < m)
      cp_async_elem(dst, el(i, j));
    else
      *dst = i == j ? 1.f : 0.f;
  };
#pragma unroll 1
  for (int e = tid; e < W * N; e += NT) {
    if (Upper)
      load(e >> 4, e & (W - 1));
    else
      load(e & (N - 1), e >> 7);
  }
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();  // the first leaf's columns and fail = 0 are visible
  if (tid == DiagLeaf::kLead) DLA_POTRF_DIAG_STAMP(9);
  if (warp >= 1) {
#pragma unroll 1
    for (int e = tid - 32; e < N * N; e += NT - 32) {
      const int f = e & (N - 1), s = e >> 7;
      const int i = Upper ? s : f, j = Upper ? f : s;
      if (j >= W) load(i, j);
    }
    cp_async_commit();
  }

  const int unit = diag_threads<float>() / 32;  // the panel kernel's count per sub-panel
  int linfo = 0;
#pragma unroll 1
  for (int c0 = 0; c0 < M; c0 += W) {
    // A: the leaf, L = chol(a) in registers (a[r][c], c <= r).
    if (tid == 0) {
      float a[W][W];
#pragma unroll
      for (int c = 0; c < W; ++c)
#pragma unroll
        for (int g = c / 4; g < W / 4; ++g) {
          float v[4];
          ld16(&sm.S[c0 + c][c0 + 4 * g], v);
#pragma unroll
          for (int r = 0; r < 4; ++r) a[4 * g + r][c] = v[r];
        }
      int f = 0;
      float ri[W];
#pragma unroll
      for (int q = 0; q < W; ++q) {
        const float d = a[q][q];
        if (f == 0 && !(d > 0.f)) f = q + 1;
        const float inv = rsqrtf(d);  // <= 2 ulp, subnormal pivots included
        ri[q] = inv;
        a[q][q] = d * inv;
#pragma unroll
        for (int r = q + 1; r < W; ++r) a[r][q] *= inv;
#pragma unroll
        for (int r = q + 1; r < W; ++r)
#pragma unroll
          for (int c = q + 1; c <= r; ++c) a[r][c] = fmaf(-a[r][q], a[c][q], a[r][c]);
      }
      // Columns < f - 1 are L even after a failure; the others stay as they were.
      const int done = f == 0 ? W : f - 1;
#pragma unroll
      for (int c = 0; c < W; ++c) {
        if (c >= done) break;
#pragma unroll
        for (int g = c / 4; g < W / 4; ++g) {
          float4 v;
          v.x = 4 * g + 0 >= c ? a[4 * g + 0][c] : 0.f;
          v.y = 4 * g + 1 >= c ? a[4 * g + 1][c] : 0.f;
          v.z = 4 * g + 2 >= c ? a[4 * g + 2][c] : 0.f;
          v.w = 4 * g + 3 >= c ? a[4 * g + 3][c] : 0.f;
          *reinterpret_cast<float4*>(&sm.S[c0 + c][c0 + 4 * g]) = v;
        }
      }
#pragma unroll
      for (int q = 0; q < W; ++q) sm.rinv[q] = ri[q];
      if (f != 0) sm.fail = c0 + f;
      DLA_POTRF_DIAG_STAMP(18 + c0 / W);
    }
    cp_async_wait<0>();  // the rest of the block (a no-op after the first leaf)
    __syncthreads();     // barrier 1
    if (sm.fail != 0) {  // uniform: store columns c0.. as they are, and stop
      linfo = sm.fail;
#pragma unroll 1
      for (int e = tid; e < N * N; e += NT) {
        const int f = e & (N - 1), s = e >> 7;
        const int i = Upper ? s : f, j = Upper ? f : s;
        if (j >= c0 && i >= j && i < m) *el(i, j) = sm.S[j][i];
      }
      break;
    }
    // B: the rows below the leaf, x L^T = a.
    const int i = c0 + W + (tid - 32);
    if (warp >= 1 && i < M) {
      // The leaf and its reciprocal pivots into registers first (all loads
      // in flight), then the 16-step chain.
      float x[W], l[W][W], ri[W];
#pragma unroll
      for (int q = 0; q < W; ++q) x[q] = sm.S[c0 + q][i];
#pragma unroll
      for (int g = 0; g < W / 4; ++g) ld16(&sm.rinv[4 * g], &ri[4 * g]);
#pragma unroll
      for (int q = 0; q < W; ++q)
#pragma unroll
        for (int g = (q + 1) / 4; g < W / 4; ++g) ld16(&sm.S[c0 + q][c0 + 4 * g], &l[q][4 * g]);
#pragma unroll
      for (int q = 0; q < W; ++q) {
        x[q] *= ri[q];
#pragma unroll
        for (int v = q + 1; v < W; ++v) x[v] = fmaf(-x[q], l[q][v], x[v]);
      }
#pragma unroll
      for (int q = 0; q < W; ++q) sm.S[c0 + q][i] = x[q];
      if (i < m)
#pragma unroll
        for (int q = 0; q < W; ++q)
          if (c0 + q < m) *el(i, c0 + q) = x[q];
    } else if (warp == 0 && lane < W && c0 + lane < m) {  // the leaf's row `lane`
#pragma unroll
      for (int q = 0; q < W; ++q)
        if (q <= lane) *el(c0 + lane, c0 + q) = sm.S[c0 + q][c0 + lane];
    }
    __syncthreads();  // barrier 2
    if (tid == DiagLeaf::kLead && flag != nullptr && (c0 + W) % 32 == 0 && c0 + W < m) {
      // After the barrier, so the release covers every thread's stores of
      // columns < c0 + W (the panel kernel reads the flag with ld.acquire).
      asm volatile("red.release.gpu.global.add.s32 [%0], %1;" ::"l"(flag), "r"(unit) : "memory");
      DLA_POTRF_DIAG_STAMP((c0 + W) / 32);
    }
    if (tid == DiagLeaf::kLead) DLA_POTRF_DIAG_STAMP(10 + c0 / W);
    // C: the trailing lower triangle (rows and columns t0 .. M - 1) -= X X^T.
    const int t0 = c0 + W;
    if (t0 >= M) continue;
    if (warp == 0) {
      // The next leaf's block: tile t = lane / 2 of its 10 (rows 4 a, columns
      // 4 b, b <= a), half h = lane % 2 of the k range.
      if (lane < 20) {
        const int t = lane >> 1, h = lane & 1;
        const int a = t < 1 ? 0 : t < 3 ? 1 : t < 6 ? 2 : 3;
        const int b = t - a * (a + 1) / 2;
        float acc[4][4];
        leaf_tile_product(sm, c0, 8 * h, 8 * h + 8, t0 + 4 * a, t0 + 4 * b, acc);
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
          for (int c = 0; c < 4; ++c) acc[r][c] += __shfl_xor_sync(0x000fffffu, acc[r][c], 1);
        if (h == 0) leaf_tile_subtract(sm, t0 + 4 * a, t0 + 4 * b, acc);
      }
      __syncwarp();
    } else if (warp != 4) {
      // Every other tile: tile rows R >= 4 of the trailing triangle, numbered
      // row by row (the 10 tiles of rows 0..3 are warp 0's), over warps 1..3
      // and 5..7: warp 4 shares warp 0's scheduler (warp % 4), whose thread 0
      // factors the next leaf meanwhile.
      const int nt = (M - t0) / 4;
      const int count = nt * (nt + 1) / 2;
      const int w = tid - 32 - (warp > 4 ? 32 : 0);
#pragma unroll 1
      for (int t = 10 + w; t < count; t += NT - 64) {
        int R = int((sqrtf(8.f * float(t) + 1.f) - 1.f) * 0.5f);
        if ((R + 1) * (R + 2) / 2 <= t) ++R;
        if (R * (R + 1) / 2 > t) --R;
        const int C = t - R * (R + 1) / 2;
        float acc[4][4];
        leaf_tile_product(sm, c0, 0, W, t0 + 4 * R, t0 + 4 * C, acc);
        leaf_tile_subtract(sm, t0 + 4 * R, t0 + 4 * C, acc);
      }
    }
  }
  __syncthreads();  // every thread's stores are done
  if (tid == DiagLeaf::kLead) {
    if (linfo != 0) *info = int(offset + linfo);
    __threadfence();
    panel_flag_release(flag, flag_base);
    DLA_POTRF_DIAG_STAMP(8);
  }
}

}  // namespace dla::cuda::detail
