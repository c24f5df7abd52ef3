// The seed SGEMM progression of DESIGN.md (naive -> reg128_vec4_db). Every
// kernel is correct on any shape and op combination: loads are guarded
// (zero outside the matrix) and ops are handled by the element accessors.
// Where a kernel has a vectorized fast path, it applies only to full tiles
// whose source is 16-byte aligned with ld % 4 == 0; other tiles take the
// scalar guarded path of the same structure (see docs/gemm.md).
#include "gemm_kernels.cuh"
#include "gemm_reg_tiled.cuh"

namespace dla::cuda::detail {
namespace {

// ---------------------------------------------------------------- naive
__global__ void naive_kernel(GemmArgs<float> g) {
  const index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  const index_t j = blockIdx.y * index_t(blockDim.y) + threadIdx.y;
  if (i >= g.m || j >= g.n) return;
  float acc = 0;
  for (index_t p = 0; p < g.k; ++p) acc += load_a(g, i, p) * load_b(g, p, j);
  store_c(g, i, j, acc);
}

// ---------------------------------------------------------------- smem32
// 32x32 threads, one element of C each; A and B through 32x33 padded tiles.
__global__ void __launch_bounds__(1024) smem32_kernel(GemmArgs<float> g) {
  __shared__ float As[32][33];  // As[p][i]
  __shared__ float Bs[32][33];  // Bs[j][p]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const index_t i0 = blockIdx.x * index_t(32), j0 = blockIdx.y * index_t(32);
  float acc = 0;
  for (index_t p0 = 0; p0 < g.k; p0 += 32) {
    As[ty][tx] = load_a(g, i0 + tx, p0 + ty);
    Bs[ty][tx] = load_b(g, p0 + tx, j0 + ty);
    __syncthreads();
#pragma unroll
    for (int p = 0; p < 32; ++p) acc += As[p][tx] * Bs[ty][p];
    __syncthreads();
  }
  store_c(g, i0 + tx, j0 + ty, acc);
}

// ---------------------------------------------------------------- smem32_vec4
// 256 threads, 32x32 tile of C, four consecutive rows per thread, float4
// global loads on the fast path (op N, aligned, full tile).
__global__ void __launch_bounds__(256) smem32_vec4_kernel(GemmArgs<float> g, bool vecA, bool vecB) {
  __shared__ __align__(16) float As[32][36];  // As[p][i], float4-readable rows
  __shared__ float Bs[32][33];                // Bs[j][p]
  const int t = threadIdx.x, tx = t % 8, ty = t / 8;
  const index_t i0 = blockIdx.x * index_t(32), j0 = blockIdx.y * index_t(32);
  float acc[4] = {0, 0, 0, 0};
  for (index_t p0 = 0; p0 < g.k; p0 += 32) {
    const bool fullk = p0 + 32 <= g.k;
    {  // A: column p = ty of the tile, rows 4*tx..4*tx+3
      const index_t i = i0 + 4 * tx, p = p0 + ty;
      if (vecA && fullk && i0 + 32 <= g.m) {
        *reinterpret_cast<float4*>(&As[ty][4 * tx]) =
            *reinterpret_cast<const float4*>(g.A + i + p * g.lda);
      } else {
#pragma unroll
        for (int r = 0; r < 4; ++r) As[ty][4 * tx + r] = load_a(g, i + r, p);
      }
    }
    {  // B: column j = ty of the tile, k rows 4*tx..4*tx+3
      const index_t p = p0 + 4 * tx, j = j0 + ty;
      if (vecB && fullk && j0 + 32 <= g.n) {
        const float4 v = *reinterpret_cast<const float4*>(g.B + p + j * g.ldb);
        Bs[ty][4 * tx] = v.x; Bs[ty][4 * tx + 1] = v.y;
        Bs[ty][4 * tx + 2] = v.z; Bs[ty][4 * tx + 3] = v.w;
      } else {
#pragma unroll
        for (int r = 0; r < 4; ++r) Bs[ty][4 * tx + r] = load_b(g, p + r, j);
      }
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < 32; ++p) {
      const float4 a = *reinterpret_cast<const float4*>(&As[p][4 * tx]);
      const float b = Bs[ty][p];
      acc[0] += a.x * b; acc[1] += a.y * b; acc[2] += a.z * b; acc[3] += a.w * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) store_c(g, i0 + 4 * tx + r, j0 + ty, acc[r]);
}

// ---------------------------------------------------------------- volkov_nn
// Volkov & Demmel 2008 sgemmNN: 64 threads (16x4), a 64x16 block of C, one
// row of 16 accumulators per thread; B staged through a padded 16x17 tile,
// A streamed from global memory (coalesced along m for op(A) = A).
__global__ void __launch_bounds__(64) volkov_kernel(GemmArgs<float> g) {
  __shared__ float Bs[16][17];  // Bs[j][p]
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const index_t i0 = blockIdx.x * index_t(64), j0 = blockIdx.y * index_t(16);
  const index_t i = i0 + t;
  const bool fast = !g.ta && i0 + 64 <= g.m;
  float c[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) c[j] = 0;
  for (index_t p0 = 0; p0 < g.k; p0 += 16) {
#pragma unroll
    for (int r = 0; r < 4; ++r) Bs[ty + 4 * r][tx] = load_b(g, p0 + tx, j0 + ty + 4 * r);
    __syncthreads();
    if (fast && p0 + 16 <= g.k) {
      const float* a = g.A + i + p0 * g.lda;
#pragma unroll
      for (int p = 0; p < 16; ++p) {
        const float av = a[p * g.lda];
#pragma unroll
        for (int j = 0; j < 16; ++j) c[j] += av * Bs[j][p];
      }
    } else {
#pragma unroll
      for (int p = 0; p < 16; ++p) {
        const float av = load_a(g, i, p0 + p);
#pragma unroll
        for (int j = 0; j < 16; ++j) c[j] += av * Bs[j][p];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < 16; ++j) store_c(g, i, j0 + j, c[j]);
}

// ---------------------------------------------------------------- reg128_vec4_db
// Four consecutive elements along X's contiguous dimension. Element (o, p)
// of the logical operand (o: m or n index, p: k index) lives at
// X[p + o*ld] when kcontig, else X[o + p*ld]. vec: X aligned, ld % 4 == 0.
__device__ __forceinline__ float4 fetch4(const float* X, index_t ld, bool kcontig, index_t o,
                                         index_t p, index_t O, index_t K, bool vec) {
  float v[4];
  if (!kcontig) {
    if (vec && o + 3 < O && p < K) return *reinterpret_cast<const float4*>(X + o + p * ld);
#pragma unroll
    for (int r = 0; r < 4; ++r) v[r] = (o + r < O && p < K) ? X[o + r + p * ld] : 0.f;
  } else {
    if (vec && p + 3 < K && o < O) return *reinterpret_cast<const float4*>(X + p + o * ld);
#pragma unroll
    for (int r = 0; r < 4; ++r) v[r] = (o < O && p + r < K) ? X[p + r + o * ld] : 0.f;
  }
  return make_float4(v[0], v[1], v[2], v[3]);
}

// Stores a fetched float4 into the k-major tile S[p][o] (row length 128).
__device__ __forceinline__ void put4(float (*S)[128], bool kcontig, int o, int p, float4 v) {
  if (!kcontig) {
    *reinterpret_cast<float4*>(&S[p][o]) = v;
  } else {
    S[p][o] = v.x; S[p + 1][o] = v.y; S[p + 2][o] = v.z; S[p + 3][o] = v.w;
  }
}

// 128x128x8 block tile, 256 threads, 8x8 outputs per thread (two 4-wide
// subtiles per dimension, float4 shared reads), float4 global loads through
// registers, double-buffered shared memory (one barrier per k tile).
__global__ void __launch_bounds__(256) reg128_vec4_db_kernel(GemmArgs<float> g, bool vecA,
                                                             bool vecB) {
  __shared__ __align__(16) float As[2][8][128];
  __shared__ __align__(16) float Bs[2][8][128];
  const int t = threadIdx.x;
  const int tr = t % 16, tc = t / 16;
  const index_t i0 = blockIdx.x * index_t(128), j0 = blockIdx.y * index_t(128);
  // This thread's load coordinates (o within tile, p within k tile).
  const int ao = g.ta ? t / 2 : 4 * (t % 32), ap = g.ta ? 4 * (t % 2) : t / 32;
  const int bo = g.tb ? 4 * (t % 32) : t / 2, bp = g.tb ? t / 32 : 4 * (t % 2);
  float acc[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int c = 0; c < 8; ++c) acc[r][c] = 0;

  const index_t ktiles = (g.k + 7) / 8;
  float4 ra = fetch4(g.A, g.lda, g.ta, i0 + ao, ap, g.m, g.k, vecA);
  float4 rb = fetch4(g.B, g.ldb, !g.tb, j0 + bo, bp, g.n, g.k, vecB);
  put4(As[0], g.ta, ao, ap, ra);
  put4(Bs[0], !g.tb, bo, bp, rb);
  __syncthreads();
  int cur = 0;
  for (index_t kt = 0; kt < ktiles; ++kt) {
    const bool more = kt + 1 < ktiles;
    if (more) {
      const index_t p0 = (kt + 1) * 8;
      ra = fetch4(g.A, g.lda, g.ta, i0 + ao, p0 + ap, g.m, g.k, vecA);
      rb = fetch4(g.B, g.ldb, !g.tb, j0 + bo, p0 + bp, g.n, g.k, vecB);
    }
#pragma unroll
    for (int p = 0; p < 8; ++p) {
      float a[8], b[8];
      *reinterpret_cast<float4*>(a) = *reinterpret_cast<const float4*>(&As[cur][p][4 * tr]);
      *reinterpret_cast<float4*>(a + 4) = *reinterpret_cast<const float4*>(&As[cur][p][64 + 4 * tr]);
      *reinterpret_cast<float4*>(b) = *reinterpret_cast<const float4*>(&Bs[cur][p][4 * tc]);
      *reinterpret_cast<float4*>(b + 4) = *reinterpret_cast<const float4*>(&Bs[cur][p][64 + 4 * tc]);
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[r][c] += a[r] * b[c];
    }
    if (more) {
      put4(As[cur ^ 1], g.ta, ao, ap, ra);
      put4(Bs[cur ^ 1], !g.tb, bo, bp, rb);
    }
    __syncthreads();
    cur ^= 1;
  }
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int c = 0; c < 8; ++c)
      store_c(g, i0 + (r / 4) * 64 + 4 * tr + r % 4, j0 + (c / 4) * 64 + 4 * tc + c % 4,
              acc[r][c]);
}

unsigned blocks(index_t n, index_t b) { return unsigned((n + b - 1) / b); }

}  // namespace

void launch_naive(stream_t s, const GemmArgs<float>& g) {
  naive_kernel<<<dim3(blocks(g.m, 32), blocks(g.n, 8)), dim3(32, 8), 0, s>>>(g);
  DLA_CUDA_CHECK_LAUNCH();
}
void launch_smem32(stream_t s, const GemmArgs<float>& g) {
  smem32_kernel<<<dim3(blocks(g.m, 32), blocks(g.n, 32)), dim3(32, 32), 0, s>>>(g);
  DLA_CUDA_CHECK_LAUNCH();
}
void launch_smem32_vec4(stream_t s, const GemmArgs<float>& g) {
  const bool vecA = !g.ta && g.lda % 4 == 0 && aligned16(g.A);
  const bool vecB = !g.tb && g.ldb % 4 == 0 && aligned16(g.B);
  smem32_vec4_kernel<<<dim3(blocks(g.m, 32), blocks(g.n, 32)), 256, 0, s>>>(g, vecA, vecB);
  DLA_CUDA_CHECK_LAUNCH();
}
void launch_volkov_nn(stream_t s, const GemmArgs<float>& g) {
  volkov_kernel<<<dim3(blocks(g.m, 64), blocks(g.n, 16)), 64, 0, s>>>(g);
  DLA_CUDA_CHECK_LAUNCH();
}
void launch_reg128(stream_t s, const GemmArgs<float>& g) {
  launch_reg_tiled<float, 128, 128, 8, 8, 8>(s, g);
}
void launch_reg128_vec4_db(stream_t s, const GemmArgs<float>& g) {
  const bool vecA = g.lda % 4 == 0 && aligned16(g.A);
  const bool vecB = g.ldb % 4 == 0 && aligned16(g.B);
  reg128_vec4_db_kernel<<<dim3(blocks(g.m, 128), blocks(g.n, 128)), 256, 0, s>>>(g, vecA, vecB);
  DLA_CUDA_CHECK_LAUNCH();
}

}  // namespace dla::cuda::detail
