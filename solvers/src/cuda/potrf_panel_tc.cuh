#pragma once
// potrf_panel_tc_kernel: the fused panel of potrf_kernels.cuh (right-looking
// order, float, block columns of width jb <= 128) with 128-row blocks and the
// updates of the later chunks on the tensor cores (3xTF32 mma.sync), for the
// look-ahead where the solvers' FP32 products run on the tensor cores.
//
// Why (docs/cholesky.md, session 31). The panel sets its own pace: after each
// release of a sub-panel it copies it, solves its chunk (32 steps) and
// applies the chunk to the later chunks, and the latter updates, on the CUDA
// cores, are bound by shared-memory wavefronts (a shared load of X and two of
// L per 8 FMAs). In the timeline at n = 4096 the panels that ran beside the
// bulk update had 44-58 blocks of 64 rows on the 35 SMs left, two blocks on
// most SMs, which doubled that loop: they ended ~15 us after their diagonal
// kernel instead of ~3. The same panel with two rows per thread on the CUDA
// cores (one 128-row block per SM) ended ~9-10 us after it, with or without
// the bulk update: a 128-row block's chain per chunk outran the diagonal
// kernel's release interval.
//
// Layout: thread (warp w, lane = 4 gq + tq) owns rows 16 w + gq + 8 h (h < 2)
// of the block and, in every chunk of 32 columns, the columns 8 j + 2 tq + e
// (j < 4, e < 2): acc[s][j][2 h + e], which is exactly the accumulator
// fragment of mma m16n8k8 for the warp's 16 rows and piece j of chunk s.
// So an update of chunk s2 with the solved chunk s needs no shared memory for
// X: with the k index of each 8-column block permuted (fragment position tq
// is column 2 tq, position tq + 4 is column 2 tq + 1), the A fragment of X
// is the thread's own acc[s][kb] (negated); the B fragment is
// L(32 s2 + 8 j + gq, 32 s + 8 kb + 2 tq + {0, 1}) from the shared copy of
// L11 (conflict-free: bank 8 tq + gq + const). Per chunk pair and warp: 16
// pieces x 3 products = 48 mma.sync, against 32 x 16 FMAs with 3 shared
// loads per 8 on the CUDA cores.
// The 32-step solve of chunk s stays on the CUDA cores: x_i = acc * rinv[i]
// on the owner of column i (lane 4 gq + (i & 7) / 2, slot (i / 8, i & 1)),
// shuffled to the row's 4 lanes, and every later column of the thread
// subtracts x_i L(column, c0 + i) (two rows share each shared load).
// Sub-panels are copied at their release (panel_copy_subpanel), as in
// potrf_panel_kernel. 46 KB of shared memory.
#include <cuda_runtime.h>

#include "dla/core/cuda_tf32.cuh"
#include "potrf_kernels.cuh"

namespace dla::cuda::detail {

constexpr int kPanelTcRows = 128;  // rows per block

template <bool Mma = true>
__global__ void __launch_bounds__(kPanelThreads)
    potrf_panel_tc_kernel(const float* L11, float* P, index_t ld, int jb, index_t r, bool upper,
                          const int* flag, int flag_base) {
  using Smem = PanelL<float, 128>;
  constexpr int kWarpsDiag = diag_threads<float>() / 32;  // flag increments per sub-panel
  constexpr int kChunks = 4;
  constexpr unsigned kFull = 0xffffffffu;
  extern __shared__ __align__(16) unsigned char panel_tc_smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(panel_tc_smem_raw);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int gq = lane >> 2, tq = lane & 3;  // lane = 4 gq + tq (mma fragment coordinates)
  index_t t[2];
  bool live[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    t[h] = index_t(blockIdx.x) * kPanelTcRows + 16 * warp + gq + 8 * h;
    live[h] = t[h] < r;
  }
  auto pel = [&](int h, int c) { return upper ? P + c + t[h] * ld : P + t[h] + index_t(c) * ld; };
  const int nchunks = (jb + 31) / 32;

  // acc[s][j][2 h + e] = element (row h, column 32 s + 8 j + 2 tq + e).
  float acc[kChunks][4][4];
#pragma unroll
  for (int s = 0; s < kChunks; ++s)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int c = 32 * s + 8 * j + 2 * tq + (q & 1);
        acc[s][j][q] = live[q >> 1] && c < jb ? *pel(q >> 1, c) : 0.f;
      }

  DLA_POTRF_PANEL_STAMP(0);
#pragma unroll
  for (int s = 0; s < kChunks; ++s) {
    if (s >= nchunks) break;
    const int c0 = 32 * s;
    DLA_POTRF_PANEL_STAMP(2 + 5 * s);
    panel_wait(flag, flag_base + (s + 1) * kWarpsDiag);
    DLA_POTRF_PANEL_STAMP(3 + 5 * s);
    // The last chunk: the next kernel on the stream may launch now (see
    // potrf_panel_kernel).
    if (s == nchunks - 1) asm volatile("griddepcontrol.launch_dependents;");
    panel_copy_subpanel(sm, L11, ld, jb, upper, s);
    DLA_POTRF_PANEL_STAMP(4 + 5 * s);

    // The solve: x L11(s)^T = a, column by column.
#pragma unroll
    for (int i = 0; i < 32; ++i) {
      const int j = i >> 3, e = i & 1, owner = (lane & ~3) | ((i & 7) >> 1);
      const float ri = sm.rinv[i];
      const float x0 = __shfl_sync(kFull, acc[s][j][e] * ri, owner);
      const float x1 = __shfl_sync(kFull, acc[s][j][2 + e] * ri, owner);
      if (tq == ((i & 7) >> 1)) {
        acc[s][j][e] = x0;
        acc[s][j][2 + e] = x1;
      }
      // L(c0 + column, c0 + i) for this thread's columns (0 up to column i).
      const float* lr = sm.lrow(s, c0 + i) + 2 * tq;
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        const float2 l = *reinterpret_cast<const float2*>(lr + 8 * jj);
        acc[s][jj][0] -= x0 * l.x;
        acc[s][jj][1] -= x0 * l.y;
        acc[s][jj][2] -= x1 * l.x;
        acc[s][jj][3] -= x1 * l.y;
      }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int c = c0 + 8 * j + 2 * tq + (q & 1);
        if (live[q >> 1] && c < jb) *pel(q >> 1, c) = acc[s][j][q];
      }
    cp_async_wait<0>();  // the rows below (the later chunks' updates)
    __syncthreads();     // row blocks complete; rinv is refilled next chunk
    DLA_POTRF_PANEL_STAMP(5 + 5 * s);

    // The later chunks: acc[s2] -= X(chunk s) L(chunk s2 rows, chunk s)^T.
#ifndef DLA_PROBE_SKIP_TC_UPDATES
    if constexpr (!Mma) {
      // CUDA cores: x(row, c) from the owner lane of column c (shuffles, once
      // for all later chunks), L(chunk s2 column, c) by 64-bit shared loads
      // shared by the thread's two rows.
#pragma unroll 1
      for (int j = 0; j < 4; ++j) {
        float v[4];  // acc[s][j] (selected: a runtime index would go to local memory)
#pragma unroll
        for (int q = 0; q < 4; ++q)
          v[q] = j == 0 ? acc[s][0][q] : j == 1 ? acc[s][1][q] : j == 2 ? acc[s][2][q] : acc[s][3][q];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
        const int c = 8 * j + u, e = u & 1, owner = (lane & ~3) | (u >> 1);
        const float x0 = __shfl_sync(kFull, v[e], owner);
        const float x1 = __shfl_sync(kFull, v[2 + e], owner);
#pragma unroll
        for (int s2 = s + 1; s2 < kChunks; ++s2) {
          const float* lr = sm.lrow(s2, c0 + c) + 2 * tq;
#pragma unroll
          for (int jj = 0; jj < 4; ++jj) {
            const float2 l = *reinterpret_cast<const float2*>(lr + 8 * jj);
            acc[s2][jj][0] -= x0 * l.x;
            acc[s2][jj][1] -= x0 * l.y;
            acc[s2][jj][2] -= x1 * l.x;
            acc[s2][jj][3] -= x1 * l.y;
          }
        }
        }
      }
    } else
#pragma unroll
    for (int s2 = s + 1; s2 < kChunks; ++s2) {
      if (s2 >= nchunks) break;
#pragma unroll
      for (int kb = 0; kb < 4; ++kb) {
        unsigned ah[4], al[4];
        split_tf32(-acc[s][kb][0], ah[0], al[0]);  // (gq, position tq): column 2 tq
        split_tf32(-acc[s][kb][2], ah[1], al[1]);  // (gq + 8, tq)
        split_tf32(-acc[s][kb][1], ah[2], al[2]);  // (gq, tq + 4): column 2 tq + 1
        split_tf32(-acc[s][kb][3], ah[3], al[3]);  // (gq + 8, tq + 4)
        const float* l0 = sm.lrow(s2, c0 + 8 * kb + 2 * tq) + gq;
        const float* l1 = sm.lrow(s2, c0 + 8 * kb + 2 * tq + 1) + gq;
        unsigned bh[4][2], bl[4][2];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          split_tf32(l0[8 * j], bh[j][0], bl[j][0]);
          split_tf32(l1[8 * j], bh[j][1], bl[j][1]);
        }
        mma_tf32x3_n4(acc[s2], ah, al, bh, bl);
      }
    }
#endif
  }
}

}  // namespace dla::cuda::detail
