#pragma once
// potrf_update_kernel: the look-ahead's critical-path update (float, lower),
// built for latency rather than throughput (docs/cholesky.md, session 23).
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
// Contract (checked by the caller): ld % 4 == 0, P and C 16-byte aligned,
// 1 <= k <= kMaxK. Rows >= m of P are zero-filled, never read.
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/cuda_cp_async.cuh"
#include "dla/core/types.hpp"

namespace dla::cuda::detail {

// 4 k-groups of 64 threads per block; each thread accumulates an 8 x 8
// register tile (rows 4 tr + q and 32 + 4 tr + q, columns likewise), so a
// k step is 4 shared 128-bit loads and 64 FMAs. 128 registers: two blocks
// per SM while k <= 128 (80 KB of shared memory each).
struct CritUpdate {
  static constexpr int kTile = 64;     // rows and columns of C per block
  static constexpr int kGroups = 4;    // k-groups per block
  static constexpr int kGroupThreads = 64;
  static constexpr int kThreads = kGroups * kGroupThreads;
  static constexpr int kMaxK = 384;    // <= 208 KB of shared memory
  // Larger updates (in 64 x 64 tiles of the grid) are throughput-bound and
  // go to the triangular GEMM: spotrf 16384 on the CUDA cores (depth 3) was
  // 2.3% slower with every update here (H200, session 23).
  static constexpr int kMaxTiles = 256;
  // Shared floats: the operand tiles (or, after them, the partial tiles),
  // then the C tile.
  __host__ __device__ static constexpr int c_offset(int k) {
    return 2 * kTile * k > kGroups * kTile * kTile ? 2 * kTile * k : kGroups * kTile * kTile;
  }
  static constexpr std::size_t smem_bytes(int k) {
    return std::size_t(c_offset(k) + kTile * kTile) * sizeof(float);
  }
};

__global__ void __launch_bounds__(CritUpdate::kThreads, 2)
    potrf_update_kernel(const float* __restrict__ P, float* C, index_t ld, int m, int n, int k) {
  using U = CritUpdate;
  constexpr int KG = U::kGroups;
  constexpr int kT = U::kTile;
  const int tj = blockIdx.x, ti = blockIdx.y;
  if (ti < tj) return;  // above the diagonal: nothing to do
  extern __shared__ __align__(16) float crit_smem[];
  float* As = crit_smem;           // As[p * 64 + i] = P(i0 + i, p)
  float* Bs = crit_smem + kT * k;  // Bs[p * 64 + j] = P(j0 + j, p)
  float* red = crit_smem;          // red[(g * 64 + j) * 64 + i]: partial tiles, later
  float* Cs = crit_smem + U::c_offset(k);  // Cs[j * 64 + i] = C(i0 + i, j0 + j)
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
  // This k-group's share of k, in two halves: 16 vectors of As and 16 of Bs
  // per column p.
  const int kb = g * k / KG, ke = (g + 1) * k / KG, kh = (kb + ke) / 2;
  for (int h = 0; h < 2; ++h) {
    const int pb = h == 0 ? kb : kh, pe = h == 0 ? kh : ke;
    for (int v = lt; v < (pe - pb) * 32; v += U::kGroupThreads) {
      const int p = pb + v / 32, w = v % 32, q = w % 16;
      const int r0 = (w < 16 ? i0 : j0) + 4 * q;
      const int rows = min(max(m - r0, 0), 4);
      cp_async16n((w < 16 ? As : Bs) + p * kT + 4 * q, rows > 0 ? P + r0 + index_t(p) * ld : P,
                4 * rows);
    }
    cp_async_commit();
  }

  // Rows 4 tr + q and 32 + 4 tr + q, columns 4 tc + q and 32 + 4 tc + q:
  // each 128-bit load of a warp covers 128 consecutive bytes.
  const int tr = lt % 8, tc = lt / 8;
  float acc[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int c = 0; c < 8; ++c) acc[r][c] = 0.f;
  auto run = [&](int pb, int pe) {
    const float* a_ptr = As + pb * kT + 4 * tr;
    const float* b_ptr = Bs + pb * kT + 4 * tc;
#pragma unroll 2
    for (int p = pb; p < pe; ++p, a_ptr += kT, b_ptr += kT) {
      const float4 a0 = *reinterpret_cast<const float4*>(a_ptr);
      const float4 a1 = *reinterpret_cast<const float4*>(a_ptr + 32);
      const float4 b0 = *reinterpret_cast<const float4*>(b_ptr);
      const float4 b1 = *reinterpret_cast<const float4*>(b_ptr + 32);
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[r][c] = fmaf(av[r], bv[c], acc[r][c]);
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
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    float* col = red + (g * kT + (c < 4 ? 4 * tc + c : 32 + 4 * tc + c - 4)) * kT;
    *reinterpret_cast<float4*>(col + 4 * tr) =
        make_float4(acc[0][c], acc[1][c], acc[2][c], acc[3][c]);
    *reinterpret_cast<float4*>(col + 32 + 4 * tr) =
        make_float4(acc[4][c], acc[5][c], acc[6][c], acc[7][c]);
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
    for (int q = 0; q < KG; ++q) s -= red[(q * kT + jj) * kT + ii];
    if (i < m && j < n && j <= i) C[i + index_t(j) * ld] = s;
  }
}

}  // namespace dla::cuda::detail
