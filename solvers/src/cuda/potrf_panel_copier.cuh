#pragma once
// potrf_panel_copier_kernel: the fused panel's float lower broadcast form
// (potrf_panel_kernel<float, 128, true, true, true>, potrf_panel.cuh) with a
// ninth warp that copies each sub-panel of L11 into shared memory as soon as
// the diagonal kernel releases it, while the other eight warps are still
// applying the previous chunk to the later ones (session 53).
//
// Why: the stamps of session 53 (experiments/fused-update/results, spotrf
// 4096 on an H100, late steps) put the panel's chain per 32-column chunk at
// ~4.5-5 us (the sub-panel seen -> copied 1.3-1.8, the solve 1.3-1.8, the
// later chunks' updates 1.0-2.1), about the diagonal kernel's release
// interval (4.4-5.4). So the panel falls behind by a chunk: it sees the last
// release ~2 us after the diagonal kernel's end and ends ~5 us after it. With
// the copy beside the updates the chain per chunk is the solve and the
// updates; the panel should keep up, and the tail be the copy and the solve.
// (Session 30 tried an early copy by the compute threads themselves, polling
// at their barriers: the polls and fences slowed the updates. Here no compute
// thread polls or fences.)
//
// The compute warps (threads 0..255) run the broadcast form's code unchanged
// (the same FMAs in the same order, so the factor is the same bit for bit);
// their block barriers are named barrier 1 (256 threads). The copier warp
// (threads 256..287), per chunk s:
//   - waits at named barrier 3 until the compute warps have solved chunk
//     s - 1 (they no longer read rinv or that chunk's diagonal block);
//   - polls the flag (acquire) for sub-panel s;
//   - copies its 32 x 32 diagonal block (16-byte cp.async: the contract is
//     lda % 4 == 0 and a 16-byte aligned A), computes rinv and zeroes the
//     block on and above the diagonal, then copies its rows below into row
//     blocks s + 1 ..;
//   - arrives at named barrier 2, where the compute warps wait before
//     solving chunk s.
// The copier writes row block s's columns of chunk s and row blocks > s's
// columns of chunk s, while the compute warps apply chunk s - 1 (row blocks
// >= s, columns of chunk s - 1): disjoint.
#include <cuda_runtime.h>

#include "dla/core/cuda_cp_async.cuh"
#include "potrf_kernels.cuh"
#include "potrf_panel.cuh"
#include "smem_vec.cuh"

namespace dla::cuda::detail {

constexpr int kCopierThreads = kPanelThreads + 32;

__device__ __forceinline__ void named_bar_sync(int id, int n) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(int id, int n) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}

__global__ void __launch_bounds__(kCopierThreads)
    potrf_panel_copier_kernel(const float* L11, float* P, index_t ld, int jb, index_t r,
                              const int* flag, int flag_base) {
  using Smem = PanelSmem<float, 128>;
  constexpr int kWarpsDiag = diag_threads<float>() / 32;  // flag increments per sub-panel
  constexpr int kChunks = 4;
  extern __shared__ __align__(16) unsigned char panel_copier_smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(panel_copier_smem_raw);
  const int tid = threadIdx.x, lane = tid & 31;
  const int nchunks = (jb + 31) / 32;
  // Barrier ids: 1 the compute warps, 2 "sub-panel s in shared memory",
  // 3 "chunk s solved" (bar.arrive by one side, bar.sync by the other).
  constexpr int kAll = kCopierThreads;

  if (tid >= kPanelThreads) {  // the copier warp
#pragma unroll 1
    for (int s = 0; s < nchunks; ++s) {
      const int c0 = 32 * s;
      if (s > 0) named_bar_sync(3, kAll);
      if (lane == 0) panel_flag_poll<32>(flag, flag_base + (s + 1) * kWarpsDiag);
      __syncwarp();
      DLA_POTRF_PANEL_STAMP(3 + 5 * s);
      // The diagonal block: quad e = (column i = e / 8, rows 4 (e % 8) ..).
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int e = lane + 32 * u, i = e / 8, j4 = 4 * (e % 8);
        const int rows = c0 + i < jb ? max(0, min(4, jb - c0 - j4)) : 0;
        cp_async16n(sm.lrow(s, c0 + i) + j4, rows > 0 ? L11 + (c0 + j4) + index_t(c0 + i) * ld : L11,
                    4 * rows);
      }
      cp_async_commit();
      // Its rows below: row blocks sb = s + 1 .., the same quads.
      const int below = (nchunks - 1 - s) * 256;
#pragma unroll 1
      for (int e = lane; e < below; e += 32) {
        const int sb = s + 1 + e / 256, q = e % 256, i = q / 8, j4 = 4 * (q % 8);
        const int rows = c0 + i < jb ? max(0, min(4, jb - 32 * sb - j4)) : 0;
        cp_async16n(sm.lrow(sb, c0 + i) + j4,
                    rows > 0 ? L11 + (32 * sb + j4) + index_t(c0 + i) * ld : L11, 4 * rows);
      }
      cp_async_commit();
      cp_async_wait<1>();
      __syncwarp();
      // Lane i: rinv[i] and zeros on and above the diagonal of column i.
      {
        float* col = sm.lrow(s, c0 + lane);
        sm.rinv[lane] = c0 + lane < jb ? 1.f / col[lane] : 0.f;
        for (int j = 0; j <= lane; ++j) col[j] = 0.f;
      }
      cp_async_wait<0>();
      DLA_POTRF_PANEL_STAMP(4 + 5 * s);
      named_bar_arrive(2, kAll);
    }
    return;
  }

  // The compute warps: potrf_panel_kernel's broadcast form.
  const int g = (tid >> 5) & 3;
  const int row = (tid >> 7) * 32 + lane;
  const index_t t = index_t(blockIdx.x) * kPanelRows + row;
  const bool live = t < r;
  auto pel = [=](int c) { return P + t + index_t(c) * ld; };
  float acc[kChunks][8];
#pragma unroll
  for (int s = 0; s < kChunks; ++s)
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int c = 32 * s + 8 * g + q;
      acc[s][q] = live && c < jb ? *pel(c) : 0.f;
    }
  DLA_POTRF_PANEL_STAMP(0);
#pragma unroll 1
  for (int s = 0; s < nchunks; ++s) {
    const int c0 = 32 * s;
    DLA_POTRF_PANEL_STAMP(2 + 5 * s);
    named_bar_sync(2, kAll);  // sub-panel s in shared memory
    // The last chunk: the next kernel on the stream may launch now.
    if (s == nchunks - 1) asm volatile("griddepcontrol.launch_dependents;");
    float(&b)[8] = acc[0];
    panel_bcast_solve(sm, s, g, row, b, [] { named_bar_sync(1, kPanelThreads); });
    DLA_POTRF_PANEL_STAMP(24 + s);  // the solve's arithmetic done
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int c = c0 + 8 * g + q;
      if (live && c < jb) *pel(c) = b[q];
    }
    // rinv and the diagonal block of chunk s are no longer read: the copier
    // may fill chunk s + 1's (after the last chunk no one waits).
    if (s + 1 < nchunks) named_bar_arrive(3, kAll);
    DLA_POTRF_PANEL_STAMP(5 + 5 * s);
    // Chunk s's columns applied to the later chunks (their row blocks came
    // with sub-panel s; Xs of chunk s is complete after the last barrier).
#pragma unroll
    for (int d = 1; d < kChunks; ++d)
      if (s + d < nchunks) panel_update_part(sm, s + d, c0, c0 + 32, g, row, acc[d]);
#pragma unroll
    for (int d = 0; d + 1 < kChunks; ++d)
#pragma unroll
      for (int q = 0; q < 8; ++q) acc[d][q] = acc[d + 1][q];
  }
}

}  // namespace dla::cuda::detail
