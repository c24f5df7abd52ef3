// Batched getrf/potrf for FP32 with n <= 128: one block of NT x NT threads
// per matrix, thread (tx, ty) holding an 8 x 8 tile of the matrix in
// registers: rows ty + NT*i (i < 8, rows interleaved so that a column load
// by NT consecutive lanes is contiguous), columns 8*tx + j (j < 8).
//   potrf: 32 < n <= 64 with NT = 8, 64 < n <= 128 with NT = 16;
//   getrf: 64 < n <= 128 with NT = 16 (for n <= 64 the row kernel of
//          batched_rows.cu measured faster: 0.79 ms against 1.24 ms for
//          10000 matrices of 64 on the H200).
//
// Why not a row per thread (batched_rows.cu) for all of them: there every
// thread touches all n columns of its row in every step, and picks column k
// out of its register array with a chain of uniform branches (registers
// cannot be indexed at run time). ncu on the H200 counted ~570 instructions
// per thread per column at n = 128 with 12 warps per SM. Here the column
// loop is unrolled by the tile width, so the column inside a tile is a
// compile-time index, a thread does at most 64 FMAs per column and none once
// its tile column is finished. Measured (H200, same inputs): potrf 10000 x 64
// 0.85 -> 0.41 ms, 2000 x 128 1.81 -> 0.55 ms; getrf 2000 x 128 2.0 -> 1.57 ms.
//
// potrf (no pivoting) needs one barrier per column: the owners of column k
// publish it unscaled, every thread scales by 1/sqrt(A(k,k)) itself.
// Buffers written before a barrier alternate by column parity (a buffer is
// rewritten only after every thread has passed a later barrier).
#include <cstdlib>
#include <limits>

#include "batched_common.cuh"
#include "dla/core/cuda_check.hpp"

namespace dla::cuda::batched {
namespace {

constexpr int W = 8;  // tile width and height

template <int NT>
constexpr int min_blocks() { return NT == 16 ? 2 : 8; }  // <= 128 registers

// Lanes of the warp that form this thread's column group (NT consecutive lanes).
template <int NT>
__device__ __forceinline__ unsigned group_mask() {
  const unsigned lane = threadIdx.x % 32;
  return (NT == 32 ? 0xffffffffu : ((1u << NT) - 1u)) << (lane / NT * NT);
}

__device__ __forceinline__ void store8(float* p, const float (&v)[W]) {
  reinterpret_cast<float4*>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
  reinterpret_cast<float4*>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
}
__device__ __forceinline__ void load8(const float* p, float (&v)[W]) {
  const float4 x = reinterpret_cast<const float4*>(p)[0];
  const float4 y = reinterpret_cast<const float4*>(p)[1];
  v[0] = x.x; v[1] = x.y; v[2] = x.z; v[3] = x.w;
  v[4] = y.x; v[5] = y.y; v[6] = y.z; v[7] = y.w;
}

// ---------------------------------------------------------------- getrf
// Per column k (tile column kc = k / 8, kk = k % 8 at compile time):
//   1. the NT lanes owning column k (tx == kc, consecutive lanes) search
//      their rows for the pivot (first maximum of |a| in pivoted order, as
//      LAPACK's isamax and the other batched kernels), reduce by shuffles,
//      compute the multipliers of their rows and publish them and the pivot;
//   2. barrier; every thread updates the positions of its rows (lazy row
//      swaps: rows stay where they are, each tracks its position in the
//      pivoted order and goes to it once at the end) and the threads owning
//      the pivot row publish it;
//   3. barrier; rank-1 update of the active rows of every unfinished tile.
// A blocked variant (the owner group factors 8 columns, then one rank-8
// update: 3 barriers per 8 columns) measured slower on the H200 (n = 128:
// 1.84 ms against 1.57): the other warps idle while one group factors the
// panel, and 79% of warp stalls were at the barriers.
template <int NT, class Loc>
__global__ void __launch_bounds__(NT * NT, min_blocks<NT>())
getrf_tiles_kernel(int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                   index_t count) {
  using T = float;
  constexpr int N = NT * W;
  __shared__ __align__(16) T s_l[2][N];  // multipliers of column k, in (ty, i) order
  __shared__ __align__(16) T s_u[N];     // the pivot row, natural column order
  __shared__ T s_piv[2];
  __shared__ int s_key[2];  // (position << 8) | row of the pivot
  const int tx = threadIdx.x / NT, ty = threadIdx.x % NT;
  const unsigned gmask = group_mask<NT>();
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    T* M = A(b);
    T a[W][W];
    int pos[W];  // position of row ty + NT*i in the pivoted order
    {
      const auto Ml = opaque(M);
      const index_t ldl = opaque(lda);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        const int r = ty + NT * i;
        pos[i] = r;
#pragma unroll
        for (int j = 0; j < W; ++j) {
          const int c = W * tx + j;
          a[i][j] = (r < n && c < n) ? Ml[r + index_t(c) * ldl] : T(0);
        }
      }
    }
    int linfo = 0;
#pragma unroll 1
    for (int kc = 0; kc * W < n; ++kc) {
#pragma unroll
      for (int kk = 0; kk < W; ++kk) {
        const int k = kc * W + kk;
        if (k >= n) break;  // uniform
        const int buf = k & 1;
        if (tx == kc) {
          // 1. Pivot search over the rows not yet chosen (position >= k).
          T bv = T(-2), best = T(0);
          int bkey = 0x7fffffff;
#pragma unroll
          for (int i = 0; i < W; ++i) {
            const int r = ty + NT * i;
            if (r < n && pos[i] >= k) {
              const T m = pivot_magnitude(a[i][kk]);
              const int key = (pos[i] << 8) | r;
              if (m > bv || (m == bv && key < bkey)) { bv = m; bkey = key; best = a[i][kk]; }
            }
          }
#pragma unroll
          for (int off = NT / 2; off > 0; off /= 2) {
            const T ov = __shfl_xor_sync(gmask, bv, off, NT);
            const int okey = __shfl_xor_sync(gmask, bkey, off, NT);
            if (ov > bv || (ov == bv && okey < bkey)) { bv = ov; bkey = okey; }
          }
          const int R = bkey & 0xff;
          const T piv = __shfl_sync(gmask, best, R % NT, NT);
          if (ty == 0) {
            s_piv[buf] = piv;
            s_key[buf] = bkey;
            ipiv[b * n + k] = (bkey >> 8) + 1;
          }
          // Multipliers of the rows that stay active (not chosen before, not the pivot).
          // Reciprocal scaling as LAPACK's sgetf2 when 1/piv does not overflow.
          const bool recip = fabsf(piv) >= std::numeric_limits<T>::min();
          const T rp = T(1) / piv;
          T l[W];
#pragma unroll
          for (int i = 0; i < W; ++i) {
            const int r = ty + NT * i;
            l[i] = T(0);
            if (piv != T(0) && r < n && pos[i] >= k && r != R) {
              l[i] = recip ? a[i][kk] * rp : a[i][kk] / piv;
              a[i][kk] = l[i];
            }
          }
          store8(&s_l[buf][W * ty], l);
        }
        __syncthreads();
        // 2. Everyone learns the pivot; lazy swap of positions; the owners of
        //    the pivot row publish it.
        const int key = s_key[buf];
        const T piv = s_piv[buf];
        const int p = key >> 8, R = key & 0xff;
        if (piv == T(0) && linfo == 0) linfo = k + 1;
        bool act[W];
#pragma unroll
        for (int i = 0; i < W; ++i) {
          const int r = ty + NT * i;
          if (r == R) pos[i] = k;
          else if (pos[i] == k) pos[i] = p;
          act[i] = r < n && pos[i] > k;
        }
        if (ty == R % NT) {
          const int ir = R / NT;
#pragma unroll
          for (int i = 0; i < W; ++i)
            if (i == ir) store8(&s_u[W * tx], a[i]);
        }
        __syncthreads();
        // 3. Rank-1 update of the unfinished columns (> k) of the active rows.
        if (piv != T(0) && tx >= kc) {
          T u[W], l[W];
          load8(&s_u[W * tx], u);
          load8(&s_l[buf][W * ty], l);
          // Branches, not per-element predicates (those cost ~4 instructions
          // per FMA): whole tiles right of column k, or the columns > k of
          // the tile holding it.
          if (tx > kc) {
#pragma unroll
            for (int i = 0; i < W; ++i)
              if (act[i]) {
#pragma unroll
                for (int j = 0; j < W; ++j) a[i][j] -= l[i] * u[j];
              }
          } else {
#pragma unroll
            for (int i = 0; i < W; ++i)
              if (act[i]) {
#pragma unroll
                for (int j = kk + 1; j < W; ++j) a[i][j] -= l[i] * u[j];
              }
          }
        }
      }
    }
    {
      T* const Ms = opaque(M);
      const index_t lds = opaque(lda);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        const int r = ty + NT * i;
#pragma unroll
        for (int j = 0; j < W; ++j) {
          const int c = W * tx + j;
          if (r < n && c < n) Ms[pos[i] + index_t(c) * lds] = a[i][j];
        }
      }
    }
    if (threadIdx.x == 0) info[b] = linfo;
    __syncthreads();  // the next matrix's step 0 rewrites buffer 0
  }
}

// ---------------------------------------------------------------- potrf
// Lower: the tile holds A(r, c); upper: A(c, r) (U = L^T), for c <= r. The
// entries above the diagonal of a tile (c > r) are updated like the rest but
// never read from or written to memory.
template <int NT, bool Upper, class Loc>
__global__ void __launch_bounds__(NT * NT, min_blocks<NT>())
potrf_tiles_kernel(int n, Loc A, index_t lda, std::int32_t* info, index_t count) {
  using T = float;
  constexpr int N = NT * W;
  __shared__ __align__(16) T s_c[2][N];  // column k (rows >= k), in (ty, i) order
  __shared__ __align__(16) T s_n[2][N];  // the same in natural row order
  const int tx = threadIdx.x / NT, ty = threadIdx.x % NT;
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    T* M = A(b);
    T a[W][W];
    {
      const auto Ml = opaque(M);
      const index_t ldl = opaque(lda);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        const int r = ty + NT * i;
#pragma unroll
        for (int j = 0; j < W; ++j) {
          const int c = W * tx + j;
          const bool in = r < n && c <= r;
          a[i][j] = in ? (Upper ? Ml[c + index_t(r) * ldl] : Ml[r + index_t(c) * ldl]) : T(0);
        }
      }
    }
    int linfo = 0;
#pragma unroll 1
    for (int kc = 0; kc * W < n && linfo == 0; ++kc) {
#pragma unroll
      for (int kk = 0; kk < W; ++kk) {
        const int k = kc * W + kk;
        if (k >= n) break;  // uniform
        const int buf = k & 1;
        if (tx == kc) {
          T v[W];
#pragma unroll
          for (int i = 0; i < W; ++i) {
            const int r = ty + NT * i;
            v[i] = (r >= k && r < n) ? a[i][kk] : T(0);
            s_n[buf][r] = v[i];
          }
          store8(&s_c[buf][W * ty], v);
        }
        __syncthreads();
        const T d = s_n[buf][k];
        if (!(d > T(0))) {  // uniform; NaN fails too
          linfo = k + 1;
          break;
        }
        const T s = sqrtf(d);
        const T inv = T(1) / s;
        if (tx >= kc) {
          T l[W], u[W];
          load8(&s_c[buf][W * ty], l);
          load8(&s_n[buf][W * tx], u);
#pragma unroll
          for (int q = 0; q < W; ++q) {
            l[q] *= inv;  // L(r, k) for r > k
            u[q] *= inv;  // L(c, k) for c > k
          }
          if (tx == kc) {
#pragma unroll
            for (int i = 0; i < W; ++i) {
              const int r = ty + NT * i;
              if (r == k) a[i][kk] = s;
              else if (r > k) a[i][kk] = l[i];
            }
          }
          // Rows <= k only hold entries right of the diagonal here (never
          // stored), so every row is updated without conditions.
          if (tx > kc) {
#pragma unroll
            for (int i = 0; i < W; ++i)
#pragma unroll
              for (int j = 0; j < W; ++j) a[i][j] -= l[i] * u[j];
          } else {
#pragma unroll
            for (int i = 0; i < W; ++i)
#pragma unroll
              for (int j = kk + 1; j < W; ++j) a[i][j] -= l[i] * u[j];
          }
        }
      }
    }
    {
      T* const Ms = opaque(M);
      const index_t lds = opaque(lda);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        const int r = ty + NT * i;
#pragma unroll
        for (int j = 0; j < W; ++j) {
          const int c = W * tx + j;
          if (r < n && c <= r) {
            if (Upper) Ms[c + index_t(r) * lds] = a[i][j];
            else Ms[r + index_t(c) * lds] = a[i][j];
          }
        }
      }
    }
    if (threadIdx.x == 0) info[b] = linfo;
    __syncthreads();  // the next matrix's step 0 rewrites buffer 0
  }
}

}  // namespace

bool tiles_enabled() {
  const char* e = std::getenv("DLA_BATCHED_NO_TILES");
  return !(e && *e && *e != '0');
}

template <class Loc>
void getrf_tiles(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                 index_t count) {
  // n <= 64 runs the row kernel (faster there: 0.79 ms against 1.24 ms for
  // 10000 matrices of 64 on the H200), so only the 16 x 16 grid is built.
  getrf_tiles_kernel<16><<<grid_for(count, 1), 256, 0, s>>>(n, A, lda, ipiv, info, count);
  DLA_CUDA_CHECK_LAUNCH();
}

template <class Loc>
void potrf_tiles(stream_t s, bool upper, int n, Loc A, index_t lda, std::int32_t* info,
                 index_t count) {
  const unsigned grid = grid_for(count, 1);
  if (n <= 8 * 8) {
    if (upper) potrf_tiles_kernel<8, true><<<grid, 64, 0, s>>>(n, A, lda, info, count);
    else potrf_tiles_kernel<8, false><<<grid, 64, 0, s>>>(n, A, lda, info, count);
  } else {
    if (upper) potrf_tiles_kernel<16, true><<<grid, 256, 0, s>>>(n, A, lda, info, count);
    else potrf_tiles_kernel<16, false><<<grid, 256, 0, s>>>(n, A, lda, info, count);
  }
  DLA_CUDA_CHECK_LAUNCH();
}

template void getrf_tiles<Strided<float>>(stream_t, int, Strided<float>, index_t, std::int32_t*,
                                          std::int32_t*, index_t);
template void getrf_tiles<PtrArray<float>>(stream_t, int, PtrArray<float>, index_t,
                                           std::int32_t*, std::int32_t*, index_t);
template void potrf_tiles<Strided<float>>(stream_t, bool, int, Strided<float>, index_t,
                                          std::int32_t*, index_t);
template void potrf_tiles<PtrArray<float>>(stream_t, bool, int, PtrArray<float>, index_t,
                                           std::int32_t*, index_t);

}  // namespace dla::cuda::batched
