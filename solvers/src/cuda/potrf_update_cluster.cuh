#pragma once
// potrf_update_cluster_kernel: the look-ahead's critical-path update (float,
// lower, 3xTF32 on the tensor cores), each 64 x 64 tile of C spread over a
// thread-block cluster of KS CTAs that split k (session 40).
//
//   C(i, j) -= sum_{p < k} P(i, p) P(j, p)   for j <= i, i < m, j < n <= m
//
// (the same contract as potrf_update_kernel, potrf_update.cuh). Why: that
// kernel gives one CTA a whole 64 x 64 tile and all of k. Session 23 (ncu)
// found its tile latency-bound: ~17 k cycles on the CUDA cores, ~10.8 k on
// the tensor cores (session 27): issuing the loads ~3.1 k, the arithmetic
// ~5.6 k, the epilogue ~2 k, whatever the register tiling or the split of k
// inside the CTA. In place at 4096 the critical step spends ~6 us on the next
// block column's update (k = 128) and ~11 us on a group's trapezoid (k = 256)
// (session 39's stamps: the gap after the panel). Each of those parts scales
// with the data one CTA handles, and the update has 60-130 tiles for 132 SMs.
// Here CTA `rank` of a tile's cluster:
//  - loads only its share of k (k8 steps rank * steps / KS ..) of both
//    operand tiles, and the C columns it finishes (64 / KS of them);
//  - multiplies with all 8 warps (warp w: rows 16 (w % 4) .., columns
//    32 (w / 4) .., 4 m16n8k8 pieces in 3xTF32, as gemm_tf32x3.cu), so no
//    reduction inside the CTA;
//  - stores its partial tile to its shared memory; after a cluster barrier
//    it finishes its C columns from the KS partials (distributed shared
//    memory, the partials summed in rank order: deterministic), and a second
//    barrier keeps every CTA's partial alive until all have read it.
// Blocks above the diagonal exit at once, the whole cluster together.
// Measured (session 40, H200): ~1 us (k = 128) to ~2-3 us less per late
// step at 4096 than potrf_update_kernel, not the ~3-7 us predicted (the
// hand-offs, the loads' first arrival and the barriers stay); slower than it
// for the ~110-tile updates beside the bulk update and at 8192 for every
// update (a cluster waits for 4 free SMs of one GPC). So potrf.cu takes it
// for updates of at most SMs / 2 tiles (potrf_crit_cluster).
// Contract (checked by the caller): ld % 4 == 0, P and C 16-byte aligned,
// 8 <= k <= KS * kMaxKc, k % 8 == 0. Rows >= m of P are zero-filled.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/cuda_cp_async.cuh"
#include "dla/core/cuda_tf32.cuh"
#include "dla/core/types.hpp"

namespace dla::cuda::detail {

template <int KS>
struct CritCluster {
  static constexpr int kTile = 64;
  static constexpr int kThreads = 256;
  static constexpr int kMaxKc = 128;             // k per CTA
  static constexpr int kMaxK = KS * kMaxKc;
  static constexpr int kL = kTile + 8;           // operand rows (floats): fragment loads conflict-free
  static constexpr int kR = kTile + 4;           // partial tile rows: fragment stores conflict-free
  static constexpr int kCq = kTile / KS;         // C columns a CTA finishes
  static_assert(KS == 2 || KS == 4, "clusters of 2 or 4");
  // The largest share of k (k8 steps) of a CTA: every CTA lays out its shared
  // memory with it, so the partial tile is at the same offset in each.
  static constexpr int kc_max(int k) { return 8 * ((k / 8 + KS - 1) / KS); }
  // Shared floats: As, Bs (kL x kc_max each), the partial tile, the C columns.
  static constexpr std::size_t smem_bytes(int k) {
    return std::size_t(2 * kL * kc_max(k) + kTile * kR + kCq * kTile) * sizeof(float);
  }
};

// `started`: as in potrf_update_kernel (the side stream's gate).
template <int KS>
__global__ void __launch_bounds__(CritCluster<KS>::kThreads, 2)
    potrf_update_cluster_kernel(const float* __restrict__ P, float* C, index_t ld, int m, int n,
                                int k, unsigned long long* started,
                                unsigned long long started_value) {
  namespace cg = cooperative_groups;
  using U = CritCluster<KS>;
  constexpr int kT = U::kTile, kL = U::kL, kR = U::kR, kCq = U::kCq;
  if (started != nullptr && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(started), "l"(started_value) : "memory");
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = int(cluster.block_rank());
  const int tj = blockIdx.x / KS, ti = blockIdx.y;
  if (ti < tj) return;  // above the diagonal: the whole cluster leaves
  extern __shared__ __align__(16) float cc_smem[];
  const int kcm = U::kc_max(k);
  float* As = cc_smem;            // As[p * kL + i] = P(i0 + i, kb + p)
  float* Bs = As + kL * kcm;      // Bs[p * kL + j] = P(j0 + j, kb + p)
  float* red = Bs + kL * kcm;     // red[j * kR + i]: this CTA's partial of C(i0 + i, j0 + j)
  float* Cs = red + kT * kR;      // Cs[jq * kT + i] = C(i0 + i, j0 + kCq rank + jq)
  const int i0 = ti * kT, j0 = tj * kT, tid = threadIdx.x;
  const int steps = k / 8;
  const int kb = 8 * (rank * steps / KS), ke = 8 * ((rank + 1) * steps / KS);
  const int kh = 8 * ((kb + ke) / 16);

  // Launched as a programmatic dependent of the panel kernel: wait for it.
  asm volatile("griddepcontrol.wait;" ::: "memory");

  // This CTA's C columns: kCq columns of 16 vectors.
  for (int v = tid; v < kCq * kT / 4; v += U::kThreads) {
    const int jq = v / 16, j = j0 + kCq * rank + jq, i = i0 + 4 * (v % 16);
    const int rows = j < n ? min(max(m - i, 0), 4) : 0;
    cp_async16n(Cs + jq * kT + 4 * (v % 16), rows > 0 ? C + i + index_t(j) * ld : C, 4 * rows);
  }
  cp_async_commit();
  // Its share of k in two halves (whole k8 steps): 16 vectors of As and 16
  // of Bs per column p.
  for (int h = 0; h < 2; ++h) {
    const int pb = h == 0 ? kb : kh, pe = h == 0 ? kh : ke;
    for (int v = tid; v < (pe - pb) * 32; v += U::kThreads) {
      const int p = pb + v / 32, w = v % 32, q = w % 16;
      const int r0 = (w < 16 ? i0 : j0) + 4 * q;
      const int rows = min(max(m - r0, 0), 4);
      cp_async16n((w < 16 ? As : Bs) + (p - kb) * kL + 4 * q,
                  rows > 0 ? P + r0 + index_t(p) * ld : P, 4 * rows);
    }
    cp_async_commit();
  }

  // Warp w: rows 16 wr .. (one m16 piece), columns 32 wc .. (4 n8 pieces);
  // acc[nj] holds (16 wr + lg + 8 (r >> 1), 32 wc + 8 nj + 2 lq + (r & 1)).
  const int lane = tid % 32, w = tid / 32, lg = lane / 4, lq = lane % 4;
  const int wr = w % 4, wc = w / 4;
  float acc[4][4];
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[j][r] = 0.f;
  auto run = [&](int pb, int pe) {
#pragma unroll 1
    for (int k8 = pb - kb; k8 < pe - kb; k8 += 8) {
      unsigned ah[4], al[4], bh[4][2], bl[4][2];
#pragma unroll
      for (int r = 0; r < 4; ++r)
        split_tf32(As[(k8 + lq + 4 * (r >> 1)) * kL + 16 * wr + lg + 8 * (r & 1)], ah[r], al[r]);
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r)
          split_tf32(Bs[(k8 + lq + 4 * r) * kL + 32 * wc + 8 * j + lg], bh[j][r], bl[j][r]);
      mma_tf32x3_n4(acc, ah, al, bh, bl);
    }
  };
  cp_async_wait<1>();
  __syncthreads();
  run(kb, kh);
  cp_async_wait<0>();
  __syncthreads();
  run(kh, ke);
  // The next kernel (the next diagonal block, a programmatic dependent) may
  // launch now; it waits for this grid to finish.
  asm volatile("griddepcontrol.launch_dependents;");

#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      red[(32 * wc + 8 * j + 2 * lq + (r & 1)) * kR + 16 * wr + lg + 8 * (r >> 1)] = acc[j][r];
  cluster.sync();  // every CTA's partial and C columns are in its shared memory
  // Thread t finishes C(i0 + t % 64, j0 + kCq rank + t / 64 + 4 u): a warp
  // covers 32 consecutive rows of one column.
  const int ii = tid % kT, i = i0 + ii;
  const float* parts[KS];
#pragma unroll
  for (int q = 0; q < KS; ++q) parts[q] = cluster.map_shared_rank(red, q);
#pragma unroll
  for (int u = 0; u < kCq * kT / U::kThreads; ++u) {
    const int jq = tid / kT + (U::kThreads / kT) * u, jj = kCq * rank + jq, j = j0 + jj;
    float s = Cs[jq * kT + ii];
#pragma unroll
    for (int q = 0; q < KS; ++q) s -= parts[q][jj * kR + ii];
    if (i < m && j < n && j <= i) C[i + index_t(j) * ld] = s;
  }
  cluster.sync();  // no CTA leaves while another may still read its partial
}

}  // namespace dla::cuda::detail
