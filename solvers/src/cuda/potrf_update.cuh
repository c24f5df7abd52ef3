#pragma once
// potrf_update_kernel: the look-ahead's critical-path update (float, lower),
// built for latency rather than throughput (docs/cholesky-log.md, session 23).
//
//   C(i, j) -= sum_{p < k} P(i, p) P(j, p)   for j <= i, i < m, j < n <= m
//
// with P(i, p) = P[i + p ld] (the panel's rows) and C(i, j) = C[i + j ld]
// (C's diagonal on the matrix diagonal: the next block column, or the next
// group's trapezoid). Only the lower triangle of C is written.
//
// Why: a 64 x 64 tile of this update at k = 128 takes ~10-12 us in every
// tiled SGEMM configuration (ncu, session 22), ~4x its FMA time on one SM,
// whatever the grid size: the pipelined GEMM tile is latency-bound at the
// critical path's small k. Here one block of 256 threads owns a 64 x 64 tile:
//  - every load is issued at once: the C tile and the whole k range of both
//    operand tiles, by cp.async into shared memory (k <= kMaxK);
//  - the 8 warps split k four ways (a "k-group" of 2 warps per quarter);
//    each k-group waits only for its own share (in two halves, so its
//    arithmetic starts after the first), through a named barrier of its 64
//    threads; each thread accumulates an 8 x 8 register tile;
//  - the four partial tiles meet in shared memory (over the operand tiles)
//    and every thread finishes 16 elements: C - the four partials.
// Measured on the H200 (session 23, ncu): ~8.5 us (17 k cycles, 0.6 issued
// instructions per scheduler cycle) for a 64 x 64 x 128 tile on an SM of its
// own, against 11-12 us for the tiled SGEMM's: still ~4x the FMA time; the
// factorization gains 2-7% (2048-6144).
// Blocks above the diagonal exit at once; blocks are numbered row by row, so
// the tiles of the next diagonal block come first.
//
// Two arithmetic variants (template argument TC), the rest shared:
//  - TC = false, the CUDA cores: each thread of a k-group accumulates an
//    8 x 8 register tile with FMAs (above);
//  - TC = true, the tensor cores in 3xTF32 (session 27; what the look-ahead
//    runs when spotrf's updates are on the tensor cores): each of a k-group's
//    two warps owns 32 rows x 64 columns of the tile as 2 x 8 mma.sync
//    m16n8k8 pieces; per k8 step the fragments are split into TF32 hi and lo
//    parts and three products go into a fresh fragment that is added to the
//    FP32 accumulator, exactly as in gemm_tf32x3.cu (whose header has the
//    error analysis). Measured on the H200 (session 27, clock64 stamps, one
//    64 x 64 x 128 tile alone): each k-group's half of the arithmetic takes
//    ~2.8 k cycles against the FMAs' ~3.5 k, not the ~1 k predicted from the
//    instruction count. That is 192 mma per scheduler, ~14 cycles each if the
//    tensor pipe sets it (likely for mma.sync TF32 on Hopper, where only
//    wgmma reaches the full rate; not profiled), so three products barely
//    beat the FMAs. The whole tile takes ~10.8 k cycles against ~12 k
//    (issuing the cp.async loads alone ~3.1 k, the epilogue ~2 k); in the
//    look-ahead at 4096 the updates run 5-8% faster (ncu). Operand rows are
//    padded to 72 floats and the partial tiles' rows to 68, so fragment loads
//    and stores are free of bank conflicts (lane 4 g + t on bank 8 t + g).
//
// Since session 40 the tensor-core updates of at most SMs / 2 tiles take
// potrf_update_cluster_kernel instead (potrf_update_cluster.cuh: each tile on
// a cluster of 4 CTAs that split k; potrf_crit_cluster, potrf_blocking.cpp).
//
// Contract (checked by the caller): ld % 4 == 0, P and C 16-byte aligned,
// 1 <= k <= kMaxK (TC: k <= kMaxKTc and k % 8 == 0). Rows >= m of P are
// zero-filled, never read.
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/cuda_cp_async.cuh"
#include "dla/core/cuda_tf32.cuh"
#include "dla/core/types.hpp"

namespace dla::cuda::detail {

// 4 k-groups of 64 threads per block. CUDA cores: each thread accumulates
// an 8 x 8 register tile (rows 4 tr + q and 32 + 4 tr + q, columns likewise),
// so a k step is 4 shared 128-bit loads and 64 FMAs. Tensor cores: each warp
// 2 x 8 m16n8 fragments. 128 registers: two blocks per SM while k <= 128
// (80 KB of shared memory each; 90 KB with the tensor cores' padding).
struct CritUpdate {
  static constexpr int kTile = 64;     // rows and columns of C per block
  static constexpr int kGroups = 4;    // k-groups per block
  static constexpr int kGroupThreads = 64;
  static constexpr int kThreads = kGroups * kGroupThreads;
  static constexpr int kMaxK = 384;    // <= 208 KB of shared memory
  static constexpr int kMaxKTc = 256;  // the padded rows: <= 164 KB
  // Larger updates (in 64 x 64 tiles of the grid) are throughput-bound and
  // go to the triangular GEMM: spotrf 16384 on the CUDA cores (depth 3) was
  // 2.3% slower with every update here (H200, session 23).
  static constexpr int kMaxTiles = 256;
  // Row strides (floats) of the operand tiles and of the partial tiles.
  __host__ __device__ static constexpr int ld(bool tc) { return tc ? kTile + 8 : kTile; }
  __host__ __device__ static constexpr int red_ld(bool tc) { return tc ? kTile + 4 : kTile; }
  // Shared floats: the operand tiles (or, after them, the partial tiles),
  // then the C tile.
  __host__ __device__ static constexpr int c_offset(int k, bool tc) {
    return 2 * ld(tc) * k > kGroups * kTile * red_ld(tc) ? 2 * ld(tc) * k
                                                          : kGroups * kTile * red_ld(tc);
  }
  static constexpr std::size_t smem_bytes(int k, bool tc) {
    return std::size_t(c_offset(k, tc) + kTile * kTile) * sizeof(float);
  }
};

// `started` (may be null): block (0, 0) stores `started_value` there as soon
// as it runs, before it waits for the panel kernel (values increase from
// launch to launch, see potrf_lookahead.cuh's gate_word). The look-ahead's side
// stream waits for that value (side_gate_kernel) before it launches the bulk
// update, so that this kernel's first wave is placed before the bulk
// update's blocks take the SMs.
template <bool TC>
__global__ void __launch_bounds__(CritUpdate::kThreads, 2)
    potrf_update_kernel(const float* __restrict__ P, float* C, index_t ld, int m, int n, int k,
                        unsigned long long* started, unsigned long long started_value) {
  if (started != nullptr && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(started), "l"(started_value) : "memory");
  using U = CritUpdate;
  constexpr int KG = U::kGroups;
  constexpr int kT = U::kTile;
  constexpr int kL = U::ld(TC), kR = U::red_ld(TC);
  const int tj = blockIdx.x, ti = blockIdx.y;
  if (ti < tj) return;  // above the diagonal: nothing to do
  extern __shared__ __align__(16) float crit_smem[];
  float* As = crit_smem;           // As[p * kL + i] = P(i0 + i, p)
  float* Bs = crit_smem + kL * k;  // Bs[p * kL + j] = P(j0 + j, p)
  float* red = crit_smem;          // red[(g * 64 + j) * kR + i]: partial tiles, later
  float* Cs = crit_smem + U::c_offset(k, TC);  // Cs[j * 64 + i] = C(i0 + i, j0 + j)
  const int i0 = ti * kT, j0 = tj * kT;
  const int tid = threadIdx.x, g = tid / U::kGroupThreads, lt = tid % U::kGroupThreads;

  // Launched as a programmatic dependent of the panel kernel: wait for it.
  asm volatile("griddepcontrol.wait;" ::: "memory");

  // The C tile: 64 columns of 16 vectors.
  for (int v = tid; v < kT * kT / 4; v += U::kThreads) {
    const int jj = v / 16, i = i0 + 4 * (v % 16);
    const int rows = j0 + jj < n ? min(max(m - i, 0), 4) : 0;
    cp_async16n(Cs + jj * kT + 4 * (v % 16), rows > 0 ? C + i + index_t(j0 + jj) * ld : C,
              4 * rows);
  }
  cp_async_commit();
  // This k-group's share of k, in two halves (the tensor cores' in whole k8
  // steps): 16 vectors of As and 16 of Bs per column p.
  int kb, ke, kh;
  if constexpr (TC) {
    const int steps = k / 8;
    kb = 8 * (g * steps / KG);
    ke = 8 * ((g + 1) * steps / KG);
    kh = 8 * ((kb + ke) / 16);
  } else {
    kb = g * k / KG;
    ke = (g + 1) * k / KG;
    kh = (kb + ke) / 2;
  }
  for (int h = 0; h < 2; ++h) {
    const int pb = h == 0 ? kb : kh, pe = h == 0 ? kh : ke;
    for (int v = lt; v < (pe - pb) * 32; v += U::kGroupThreads) {
      const int p = pb + v / 32, w = v % 32, q = w % 16;
      const int r0 = (w < 16 ? i0 : j0) + 4 * q;
      const int rows = min(max(m - r0, 0), 4);
      cp_async16n((w < 16 ? As : Bs) + p * kL + 4 * q, rows > 0 ? P + r0 + index_t(p) * ld : P,
                4 * rows);
    }
    cp_async_commit();
  }

  // CUDA cores: rows 4 tr + q and 32 + 4 tr + q, columns 4 tc + q and
  // 32 + 4 tc + q: each 128-bit load of a warp covers 128 consecutive bytes.
  // Tensor cores: warp w2 of the k-group owns rows 32 w2 .. 32 w2 + 31 (m16
  // pieces mi = 0, 1) and all 64 columns (n8 pieces nj = 0 .. 7); acc[mi][nj]
  // holds (16 mi + lg + 8 (r >> 1), 8 nj + 2 lq + (r & 1)) in element r.
  constexpr int kAccR = TC ? 2 : 8, kAccC = 8, kAccE = TC ? 4 : 1;
  const int tr = lt % 8, tc = lt / 8;
  const int lane = tid % 32, lg = lane / 4, lq = lane % 4, w2 = lt / 32;
  float acc[kAccR][kAccC][kAccE];
#pragma unroll
  for (int r = 0; r < kAccR; ++r)
#pragma unroll
    for (int c = 0; c < kAccC; ++c)
#pragma unroll
      for (int e = 0; e < kAccE; ++e) acc[r][c][e] = 0.f;
  auto run = [&](int pb, int pe) {
    if constexpr (TC) {
#pragma unroll 1
      for (int k8 = pb; k8 < pe; k8 += 8) {
        unsigned ah[2][4], al[2][4];
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
          for (int r = 0; r < 4; ++r)
            split_tf32(As[(k8 + lq + 4 * (r >> 1)) * kL + 32 * w2 + 16 * mi + lg + 8 * (r & 1)],
                       ah[mi][r], al[mi][r]);
#pragma unroll
        for (int j0 = 0; j0 < 8; j0 += 4) {
          unsigned bh[4][2], bl[4][2];
#pragma unroll
          for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int r = 0; r < 2; ++r)
              split_tf32(Bs[(k8 + lq + 4 * r) * kL + 8 * (j0 + j) + lg], bh[j][r], bl[j][r]);
#pragma unroll
          for (int mi = 0; mi < 2; ++mi) mma_tf32x3_n4(&acc[mi][j0], ah[mi], al[mi], bh, bl);
        }
      }
    } else {
      const float* a_ptr = As + pb * kL + 4 * tr;
      const float* b_ptr = Bs + pb * kL + 4 * tc;
#pragma unroll 2
      for (int p = pb; p < pe; ++p, a_ptr += kL, b_ptr += kL) {
        const float4 a0 = *reinterpret_cast<const float4*>(a_ptr);
        const float4 a1 = *reinterpret_cast<const float4*>(a_ptr + 32);
        const float4 b0 = *reinterpret_cast<const float4*>(b_ptr);
        const float4 b1 = *reinterpret_cast<const float4*>(b_ptr + 32);
        const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
          for (int c = 0; c < 8; ++c) acc[r][c][0] = fmaf(av[r], bv[c], acc[r][c][0]);
      }
    }
  };
  // Named barrier 1 + g: the threads of this k-group.
  cp_async_wait<1>();
  asm volatile("bar.sync %0, %1;" ::"r"(1 + g), "r"(U::kGroupThreads) : "memory");
  run(kb, kh);
  cp_async_wait<0>();
  asm volatile("bar.sync %0, %1;" ::"r"(1 + g), "r"(U::kGroupThreads) : "memory");
  run(kh, ke);
  // The next kernel (the next diagonal block, a programmatic dependent) may
  // launch now; it waits for this grid to finish.
  asm volatile("griddepcontrol.launch_dependents;");

  __syncthreads();  // every k-group is done with As and Bs; C has landed
  if constexpr (TC) {
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int nj = 0; nj < 8; ++nj)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int i = 32 * w2 + 16 * mi + lg + 8 * (r >> 1), j = 8 * nj + 2 * lq + (r & 1);
          red[(g * kT + j) * kR + i] = acc[mi][nj][r];
        }
  } else {
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      float* col = red + (g * kT + (c < 4 ? 4 * tc + c : 32 + 4 * tc + c - 4)) * kR;
      *reinterpret_cast<float4*>(col + 4 * tr) =
          make_float4(acc[0][c][0], acc[1][c][0], acc[2][c][0], acc[3][c][0]);
      *reinterpret_cast<float4*>(col + 32 + 4 * tr) =
          make_float4(acc[4][c][0], acc[5][c][0], acc[6][c][0], acc[7][c][0]);
    }
  }
  __syncthreads();
  // Thread t finishes C(i0 + (t % 64), j0 + t / 64 + (threads / 64) u): a
  // warp covers 32 consecutive rows of one column.
  const int ii = tid % kT, i = i0 + ii;
#pragma unroll
  for (int u = 0; u < kT * kT / U::kThreads; ++u) {
    const int jj = tid / kT + (U::kThreads / kT) * u, j = j0 + jj;
    float s = Cs[jj * kT + ii];
#pragma unroll
    for (int q = 0; q < KG; ++q) s -= red[(q * kT + jj) * kR + ii];
    if (i < m && j < n && j <= i) C[i + index_t(j) * ld] = s;
  }
}

// side_gate_kernel: one thread spins until *word >= value (the critical
// update's block (0, 0) has started, see potrf_update_kernel). It runs on the
// side stream after the group's panel; the critical update it waits for
// needs nothing from the side stream but rest(previous group), which comes
// before this kernel in the side stream's order, so the wait always ends.
__global__ void side_gate_kernel(const unsigned long long* word, unsigned long long value) {
  if (threadIdx.x != 0) return;
  for (;;) {
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(word) : "memory");
    if (v >= value) break;
    __nanosleep(200);
  }
}

}  // namespace dla::cuda::detail
