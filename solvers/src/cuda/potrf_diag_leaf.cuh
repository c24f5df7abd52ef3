#pragma once
// potrf_diag_leaf_kernel: the float diagonal block of order m <= 128 of the
// blocked Cholesky, right-looking over 16-column leaves in shared memory, as
// a drop-in for potrf_diag_tiles_kernel<float, 128, Upper> (same info,
// offset, progress-flag and uplo contract, potrf_kernels.cuh).
//
// 16 warps. The whole block is loaded into shared memory (16-byte loads
// where A and lda are 16-byte aligned), then per leaf
// (columns c0 .. c0 + 15), with a barrier between the steps:
//   1. the leaf warps (up to 7) read the leaf's column panel, rows
//      c0 .. m - 1, into registers: warp w holds the 16 diagonal rows in
//      lanes 0..15 (every warp the same copy) and the rows c0 + 16 + 16 w ..
//      + 15 in lanes 16..31, each lane its row's 16 entries;
//   2. they factor it with no barrier. Column q: the pivot comes from lane q
//      by a shuffle, every row scales by its rsqrt, the 16 diagonal lanes
//      publish the column to the warp's own buffer, and every row subtracts
//      its multiple of it from the later columns (the next pivot is computed
//      by lane q + 1 from its own entries and shuffled before that update,
//      so the chain per column is a shuffle, an rsqrt and two FMAs). The
//      diagonal rows are the factorization of L(c0.., c0..), the rows below
//      its solve: one instruction stream does both, so no warp waits for
//      another. The leaf's L goes back to shared memory.
//      Beside them, the last 4 warps apply the previous leaf to the
//      trailing columns past this leaf (4 x 4 tiles in 4 x 8 warp blocks,
//      k = 16);
//   3. (a failing pivot: the block as updated so far to A, and the end);
//   4. every warp stores the leaf's L to A (a column per warp) and applies
//      the leaf to the next leaf's 16 columns (a row and 4 columns per
//      thread). After every second leaf the 32-column sub-panel is released
//      to the fused panel kernel, as the tile kernel does every 32 columns.
// Why (docs/cholesky-log.md, session 36): the tile kernel takes 26-31 us per
// 128-block, ~1800 cycles per 4 columns, mostly two single-thread chains
// (the 4 x 4 diagonal factor and the rows below it, session 17). Here the
// chain per column is a few dependent instructions of one warp (~130
// cycles), and the rows below ride along in the same warp. Alone it takes
// 25.6-26.9 us against the tile kernel's 28.8 (leaf_probe), and 22.8-23.3
// us against 26 inside spotrf 4096. But there the fused panel's own chain
// (~4-6 us per 32-column chunk) ended each step at the same time with either
// kernel, so it was opt-in in session 36. With the panel's broadcast layout
// (session 37) the gain shows: spotrf 4096 1.471 -> 1.428 ms. The float
// default up to n = 12288 (potrf_leaf_diag, potrf_blocking.cpp;
// DLA_POTRF_DIAG_LEAF=1 / 0 overrides). Session 39 cut the load (16-byte
// loads: 2.8 -> 1.8 us in place), the division in step 4's index maps and
// the update warps' scattered loads: 25.6 -> 22.3 us in place at 4096
// (stamped), 27.0 -> 23.6 alone, spotrf 4096 -3%.
//
// Rows and columns >= m are an identity (never stored), so every step is
// unconditional and a padded pivot never fails. Shared memory holds the
// block column-major with stride kLeafLd (the strict upper triangle is
// scratch: diagonal 4 x 4 update tiles write it, nothing reads it as L).
//
// A failing pivot (not > 0, NaN included) at column k: info = offset + k + 1.
// Every warp computes the same diagonal rows, so all see it at the same
// column. Columns < k are stored as L, the rest of the block as updated so
// far (the blocked LAPACK convention, as in the tile kernel). The panel
// kernel's flag is released either way.
#include <cuda_runtime.h>

#include <cstdint>

#include "potrf_kernels.cuh"  // also the probe hook DLA_POTRF_LEAF_STAMP

namespace dla::cuda::detail {

constexpr int kLeafNc = 128;                // largest order
constexpr int kLeafW = 16;                  // leaf width (columns)
constexpr int kLeafLd = kLeafNc + 4;        // shared stride (floats): 16-byte aligned rows
constexpr int kLeafThreads = 512;
constexpr int kLeafWarps = kLeafThreads / 32;
constexpr int kLeafFactorWarps = 7;  // (kLeafNc - kLeafW) / kLeafW: warps 0..6 factor leaves
constexpr int kLeafUpdateThreads = 128;  // the last 4 warps: step 2's update
constexpr int kLeafFlagUnit = diag_threads<float>() / 32;  // the panel kernel's count per sub-panel
static_assert(kLeafFactorWarps * kLeafW + kLeafW == kLeafNc &&
                  32 * kLeafFactorWarps + kLeafUpdateThreads <= kLeafThreads,
              "the leaf warps cover every row below a leaf; the update warps are others");
// Dynamic shared memory: the block, and two 16-float column buffers per warp.
constexpr std::size_t potrf_diag_leaf_smem_bytes() {
  return sizeof(float) * (kLeafNc * kLeafLd + kLeafWarps * 2 * kLeafW);
}

// One leaf's column panel in a warp (step 2 above): x = the lane's row of
// the leaf, lanes 0..15 the diagonal rows (lane q holds the pivot of column
// q), lb = the warp's 2 x 16 floats. Returns the failing column + 1 (columns
// < it are L in x, the rest as updated so far), or 0. Uniform in the warp.
__device__ __forceinline__ int leaf_factor16(float (&x)[kLeafW], float* lb, int lane) {
  float piv = __shfl_sync(0xffffffffu, x[0], 0);
#pragma unroll
  for (int q = 0; q < kLeafW; ++q) {
    if (!(piv > 0.f)) return q + 1;
    const float inv = rsqrt_t(piv);
    x[q] = lane == q ? piv * inv : x[q] * inv;
    if (q + 1 < kLeafW) {
      // Lane q + 1's diagonal after this column: x[q] is its L(q + 1, q).
      // The same FMA as its update below, so the value is the same.
      const float next = __shfl_sync(0xffffffffu, fmaf(-x[q], x[q], x[q + 1]), q + 1);
      float* b = lb + (q & 1) * kLeafW;  // two buffers: the next column may be
      if (lane < kLeafW) b[lane] = x[q];  // written while a lane still reads
      __syncwarp();
#pragma unroll
      for (int c4 = (q + 1) / 4; c4 < kLeafW / 4; ++c4) {
        float v[4];
        ld16(&b[4 * c4], v);  // a broadcast: one address per warp
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int k = 4 * c4 + e;
          if (k > q) x[k] = fmaf(-x[q], v[e], x[k]);
        }
      }
      piv = next;
    }
  }
  return 0;
}

// L(i, j) = upper ? A(j, i) : A(i, j), for the kernel's parameters.
template <bool Upper>
__device__ __forceinline__ float& leaf_el(float* A, index_t lda, int i, int j) {
  return Upper ? A[j + index_t(i) * lda] : A[i + index_t(j) * lda];
}

// A -= L L^T over the 4 x 4 tiles on or below the diagonal of rows and
// columns first .. first + 4 nt - 1 (nt = ceil((m - first) / 4)), L = the
// leaf of columns cl .. cl + 15 in S; warp `warp` of `warps`. The tiles go in
// warp blocks of 4 tile rows x 8 tile columns (lane: tile row lane % 4, tile
// column lane / 4), so that a warp's loads of L per column are 4 and 8
// consecutive float4s, one wavefront each. Blocks wholly above the diagonal
// are skipped; a lane whose tile is above it idles. (Session 39: with lanes
// taking consecutive triangle tiles, ~32 scattered float4s per load, 4-6
// wavefronts, the leaf beside this update factored 1.5x slower.)
__device__ __forceinline__ void leaf_update_blocks(float* S, int cl, int first, int m, int warp,
                                                   int lane, int warps) {
  const int nt = m > first ? (m - first + 3) / 4 : 0;
  const int ti_in = lane % 4, tj_in = lane / 4;
  int k = 0;
  for (int br = 0; 4 * br < nt; ++br) {
    const int bc_end = min((4 * br + 3) / 8, (nt - 1) / 8);
    for (int bc = 0; bc <= bc_end; ++bc, ++k) {
      if (k % warps != warp) continue;
      const int ti = 4 * br + ti_in, tj = 8 * bc + tj_in;
      if (ti >= nt || tj > ti) continue;
      const int r0 = first + 4 * ti, q0 = first + 4 * tj;
      float acc[4][4] = {};
#pragma unroll
      for (int p = 0; p < kLeafW; ++p) {
        float a[4], b[4];
        ld16(&S[(cl + p) * kLeafLd + r0], a);
        ld16(&S[(cl + p) * kLeafLd + q0], b);
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float c[4];
        ld16(&S[(q0 + j) * kLeafLd + r0], c);
#pragma unroll
        for (int i = 0; i < 4; ++i) c[i] -= acc[i][j];
        *reinterpret_cast<float4*>(&S[(q0 + j) * kLeafLd + r0]) =
            make_float4(c[0], c[1], c[2], c[3]);
      }
    }
  }
}

// The leaf's 16 columns c0 .. c0 + 15 of S, rows on or below the diagonal
// and < m, to A, with no division: for lower, warp w (of 16) stores column
// c0 + w, lanes along its rows; for upper, lanes 0..15 take the columns and
// a warp two rows per pass (A is contiguous along the columns there).
template <bool Upper>
__device__ __forceinline__ void leaf_store_leaf(const float* S, float* A, index_t lda, int c0,
                                                int m, int w, int lane) {
  if (!Upper) {
    const int j = c0 + w;
    for (int i = j + lane; i < m; i += 32) leaf_el<Upper>(A, lda, i, j) = S[j * kLeafLd + i];
  } else {
    const int j = c0 + lane % kLeafW;
    for (int i = c0 + 2 * w + lane / kLeafW; i < m; i += 2 * kLeafWarps)
      if (i >= j) leaf_el<Upper>(A, lda, i, j) = S[j * kLeafLd + i];
  }
}

// The columns c .. min(c + ncols, m) - 1 of S, rows on or below the
// diagonal and < m, to A; thread t of `threads`. Along A's contiguous
// dimension: rows for lower, columns for upper.
template <bool Upper>
__device__ __forceinline__ void leaf_store_cols(const float* S, float* A, index_t lda, int c,
                                                int ncols, int m, int t, int threads) {
  const int rows = m - c;
  if (rows <= 0) return;  // (c >= m: rows * ncols of two negatives would loop)
  ncols = min(ncols, rows);
  for (int e = t; e < rows * ncols; e += threads) {
    const int i = c + (Upper ? e / ncols : e % rows), j = c + (Upper ? e % ncols : e / rows);
    if (i >= j) leaf_el<Upper>(A, lda, i, j) = S[j * kLeafLd + i];
  }
}

template <bool Upper>
__global__ void __launch_bounds__(kLeafThreads, 1)
    potrf_diag_leaf_kernel(float* A, index_t lda, int m, int* info, index_t offset, int* flag,
                           int flag_base) {
  extern __shared__ __align__(16) unsigned char leaf_smem_raw[];
  float* const S = reinterpret_cast<float*>(leaf_smem_raw);
  float* const lbuf = S + kLeafNc * kLeafLd;
  __shared__ int fail;  // failing column + 1 (of the block), or 0
  const int tid = threadIdx.x, lane = tid % 32, w = tid / 32;
  // Launched as a programmatic dependent of the kernel before it (potrf.cu),
  // like the tile kernel: wait for it, then let the fused panel launch.
  if (tid == 0) DLA_POTRF_DIAG_STAMP(9);  // probe hooks: potrf_kernels.cuh
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
  if (tid == 0) DLA_POTRF_DIAG_STAMP(0);
  if (tid == 0) DLA_POTRF_LEAF_STAMP(32);
  if (tid == 0) {
    if (flag != nullptr) atomicExch(flag, flag_base);
    fail = 0;
  }
  // Every load before the first store to shared memory (the block comes
  // from L2; session 34). Element e is (i, j) with i fastest for lower and
  // j fastest for upper: global memory is read along rows of A.
  constexpr int kLoads = kLeafNc * kLeafNc / kLeafThreads;
  auto ij = [](int e, int& i, int& j) {
    if (Upper) { j = e % kLeafNc; i = e / kLeafNc; } else { i = e % kLeafNc; j = e / kLeafNc; }
  };
  // Element (i, j) of the block as S holds it: L's triangle, an identity
  // past m, zeros above the diagonal.
  auto elem = [&](int i, int j) {
    return i < m && j <= i ? leaf_el<Upper>(A, lda, i, j) : (i == j ? 1.f : 0.f);
  };
  // 16-byte loads where A's block and lda allow them (4 consecutive
  // elements along A's contiguous dimension: rows for lower, columns for
  // upper), else scalar ones. Session 39's load probe
  // (experiments/diag-leaf/load_probe.cu): 1.06 us for the 64 KB block
  // against 2.43 with the scalar loads (1.38 with their code already cached).
  const bool vec = reinterpret_cast<uintptr_t>(A) % 16 == 0 && lda % 4 == 0;
  if (vec) {
    constexpr int kQuads = kLoads / 4;
    float4 q[kQuads];
#pragma unroll
    for (int u = 0; u < kQuads; ++u) {
      // Quad e: along-dimension index 4 (e % 32), other index e / 32.
      const int e = tid + u * kLeafThreads, a4 = 4 * (e % (kLeafNc / 4)), o = e / (kLeafNc / 4);
      const int i = Upper ? o : a4, j = Upper ? a4 : o;  // first element (i, j)
      if (a4 + 3 < m && o < m) {
        q[u] = *reinterpret_cast<const float4*>(&leaf_el<Upper>(A, lda, i, j));
      } else {
        // Past m (the last block): element by element, as the scalar form.
        constexpr int di = Upper ? 0 : 1, dj = Upper ? 1 : 0;
        q[u] = make_float4(elem(i, j), elem(i + di, j + dj), elem(i + 2 * di, j + 2 * dj),
                           elem(i + 3 * di, j + 3 * dj));
      }
    }
    if (*info != 0) {  // an earlier minor failed (uniform)
      if (tid == 0) panel_flag_release(flag, flag_base);
      return;
    }
#pragma unroll
    for (int u = 0; u < kQuads; ++u) {
      const int e = tid + u * kLeafThreads, a4 = 4 * (e % (kLeafNc / 4)), o = e / (kLeafNc / 4);
      float x[4] = {q[u].x, q[u].y, q[u].z, q[u].w};
      // Above the diagonal: zeros (full quads read A's other triangle).
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (a4 + k < m && o < m && (Upper ? a4 + k > o : o > a4 + k)) x[k] = 0.f;
      if (Upper) {
#pragma unroll
        for (int k = 0; k < 4; ++k) S[(a4 + k) * kLeafLd + o] = x[k];
      } else {
        *reinterpret_cast<float4*>(&S[o * kLeafLd + a4]) = make_float4(x[0], x[1], x[2], x[3]);
      }
    }
  } else {
    float v[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      int i, j;
      ij(tid + u * kLeafThreads, i, j);
      v[u] = elem(i, j);
    }
    // After the loads, so that the two round trips overlap (the block is only
    // read before this test).
    if (*info != 0) {  // an earlier minor failed (uniform)
      if (tid == 0) panel_flag_release(flag, flag_base);
      return;
    }
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      int i, j;
      ij(tid + u * kLeafThreads, i, j);
      S[j * kLeafLd + i] = v[u];
    }
  }
  __syncthreads();
  if (tid == 0) DLA_POTRF_LEAF_STAMP(33);

  int linfo = 0;
#pragma unroll 1
  for (int c0 = 0; c0 < m; c0 += kLeafW) {
    const int c1 = c0 + kLeafW;
    if (tid == 0) DLA_POTRF_LEAF_STAMP(4 * (c0 / kLeafW));
    // 1. The leaf warps (at least one, for the diagonal rows) read the
    // leaf's column panel; lanes >= 16 hold row c1 + 16 w + lane - 16 (past
    // the block: a copy of a diagonal row, never stored).
    const int nw = m > c1 ? (m - c1 + kLeafW - 1) / kLeafW : 1;
    const bool factors = w < nw;  // nw <= kLeafFactorWarps
    const int row = lane < kLeafW ? c0 + lane : c0 + kLeafW * w + lane;
    const bool below = lane >= kLeafW && row < kLeafNc;
    float x[kLeafW];
    if (factors) {
      const int rl = lane < kLeafW || below ? row : c0 + lane - kLeafW;
#pragma unroll
      for (int k = 0; k < kLeafW; ++k) x[k] = S[(c0 + k) * kLeafLd + rl];
    }
    __syncthreads();  // every leaf warp has read the diagonal rows before warp 0 writes them
    if (factors) {
      // 2. The leaf's column panel factored, its L to S.
      const int f = leaf_factor16(x, lbuf + w * 2 * kLeafW, lane);
      if (tid == 0) DLA_POTRF_LEAF_STAMP(4 * (c0 / kLeafW) + 1);
      if (below || (w == 0 && lane < kLeafW))
#pragma unroll
        for (int k = 0; k < kLeafW; ++k) S[(c0 + k) * kLeafLd + row] = x[k];
      if (tid == 0 && f != 0) fail = c0 + f;
    } else if (tid >= kLeafThreads - kLeafUpdateThreads && c0 > 0) {
      // 3. The update warps, beside it: the previous leaf's update of the
      // columns past this leaf (this leaf's columns had it in step 4 of
      // the previous pass).
      const int t = tid - (kLeafThreads - kLeafUpdateThreads);
      leaf_update_blocks(S, c0 - kLeafW, c1, m, t / 32, lane, kLeafUpdateThreads / 32);
      if (t == 0) DLA_POTRF_LEAF_STAMP(40 + c0 / kLeafW - 1);
    }
    __syncthreads();  // the leaf in S; the previous leaf's update done
    if (tid == 0) DLA_POTRF_LEAF_STAMP(4 * (c0 / kLeafW) + 2);
    if (fail != 0) {  // uniform: store columns >= c0 as updated so far
      linfo = fail;
      leaf_store_cols<Upper>(S, A, lda, c0, kLeafNc, m, tid, kLeafThreads);
      break;
    }
    // 4. Every warp: the leaf's L to A (warp w: leaf column c0 + w), and the
    // leaf's update of the next leaf's columns c1 .. c1 + 15, rows c1 .. m - 1
    // (warp w: the 4 columns c1 + 4 (w % 4) .., row c1 + 32 (w / 4) + lane).
    // No division in either mapping: with threads taking elements e / rows,
    // e % rows this step took 0.8-1.3 us per leaf in place at 4096; now
    // 0.25-1.0 (session 39's stamps, late steps).
    static_assert(kLeafWarps == kLeafW && 32 * (kLeafWarps / 4) >= kLeafNc - kLeafW,
                  "a warp per leaf column stores; 4 warps per 4-column group cover the rows");
    leaf_store_leaf<Upper>(S, A, lda, c0, m, w, lane);
    if (const int i = c1 + 32 * (w / 4) + lane; i < m) {
      const int q0 = c1 + 4 * (w % 4);
      float acc[4] = {};
#pragma unroll
      for (int p = 0; p < kLeafW; ++p) {
        const float l = S[(c0 + p) * kLeafLd + i];
        float b[4];
        ld16(&S[(c0 + p) * kLeafLd + q0], b);
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[j] = fmaf(l, b[j], acc[j]);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) S[(q0 + j) * kLeafLd + i] -= acc[j];
    }
    __syncthreads();
    if (tid == 0) DLA_POTRF_LEAF_STAMP(4 * (c0 / kLeafW) + 3);
    if (c1 >= m) break;
    if (tid == 0 && flag != nullptr && c1 % 32 == 0) {
      // After the barrier, so the release covers every thread's stores of
      // columns < c1 (the panel kernel reads the flag with ld.acquire).
      asm volatile("red.release.gpu.global.add.s32 [%0], %1;" ::"l"(flag), "r"(kLeafFlagUnit)
                   : "memory");
      DLA_POTRF_DIAG_STAMP(c1 / 32);
    }
  }
  __syncthreads();  // every thread's stores are done
  if (tid == 0) {
    if (linfo != 0) *info = int(offset + linfo);
    __threadfence();
    panel_flag_release(flag, flag_base);
    DLA_POTRF_DIAG_STAMP(8);
    DLA_POTRF_LEAF_STAMP(34);
  }
}

}  // namespace dla::cuda::detail
