#pragma once
// 2-D register-tiled GEMM (the `reg128` seed variant, and DGEMM with a
// smaller tile): a BM x BN block tile, BK-deep shared tiles, TM x TN outputs
// per thread spread with stride BM/TM (rows) and BN/TN (columns) so shared
// reads are conflict-free scalars. Scalar guarded global loads, with the
// thread-to-element mapping chosen per op so global reads are coalesced.
#include "gemm_common.cuh"

namespace dla::cuda::detail {

template <class T, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    reg_tiled_kernel(GemmArgs<T> g) {
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int RM = BM / TM, RN = BN / TN;  // thread grid
  __shared__ T As[BK][BM];
  __shared__ T Bs[BK][BN + 1];
  const int t = threadIdx.x, tr = t % RM, tc = t / RM;
  const index_t i0 = blockIdx.x * index_t(BM), j0 = blockIdx.y * index_t(BN);
  // Triangular launches: a block with no element in the triangle has nothing
  // to do (lower: test its bottom-left corner; upper: its top-right corner).
  if (!in_tri(g.tri, i0 + BM - 1, j0) && !in_tri(g.tri, i0, j0 + BN - 1)) return;
  T acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0;
  for (index_t p0 = 0; p0 < g.k; p0 += BK) {
    for (int idx = t; idx < BK * BM; idx += NT) {
      const int i = g.ta ? idx / BK : idx % BM, p = g.ta ? idx % BK : idx / BM;
      As[p][i] = load_a(g, i0 + i, p0 + p);
    }
    for (int idx = t; idx < BK * BN; idx += NT) {
      const int j = g.tb ? idx % BN : idx / BK, p = g.tb ? idx / BN : idx % BK;
      Bs[p][j] = load_b(g, p0 + p, j0 + j);
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      T a[TM], b[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) a[r] = As[p][tr + r * RM];
#pragma unroll
      for (int c = 0; c < TN; ++c) b[c] = Bs[p][tc + c * RN];
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) store_c(g, i0 + tr + r * RM, j0 + tc + c * RN, acc[r][c]);
}

template <class T, int BM, int BN, int BK, int TM, int TN>
void launch_reg_tiled(stream_t s, const GemmArgs<T>& g) {
  const dim3 grid(unsigned((g.m + BM - 1) / BM), unsigned((g.n + BN - 1) / BN));
  reg_tiled_kernel<T, BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN), 0, s>>>(g);
  DLA_CUDA_CHECK_LAUNCH();
}

}  // namespace dla::cuda::detail
