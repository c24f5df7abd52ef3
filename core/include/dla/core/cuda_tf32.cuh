#pragma once
// The 3xTF32 building blocks shared by dla's kernels: the operand split, one
// mma.sync m16n8k8 TF32 product, and the three-product step of 4 n8 pieces.
// Used by the tensor-core GEMMs (gemm/src/cuda: gemm_tf32x3.cu,
// gemm_tf32x3_wgmma.cu; gemm_tf32x3.cu's header says how three TF32 products
// give FP32 accuracy) and the Cholesky's critical-path update
// (solvers/src/cuda/potrf_update.cuh). For dla's own CUDA sources; not part
// of the API a user includes.
#include <cuda_runtime.h>

namespace dla::cuda::detail {

// x = hi + lo + r, hi and lo TF32 (their low 13 bits zero), |r| <= 2^-22 |x|
// (the operand split of the 3xTF32 kernels).
__device__ __forceinline__ void split_tf32(float x, unsigned& hi, unsigned& lo) {
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(x));
  const float rest = x - __uint_as_float(hi);
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(lo) : "f"(rest));
}

// d += a b for one 16x8x8 piece: a row-major 16x8 (a0 (g, t), a1 (g+8, t),
// a2 (g, t+4), a3 (g+8, t+4)), b 8x8 by columns (b0 (t, g), b1 (t+4, g)),
// d (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1); lane = 4 g + t.
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4],
                                         const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// acc[j] += a b[j] for 4 n8 pieces (j < 4) in 3xTF32, with a = ah + al and
// b[j] = bh[j] + bl[j] split by split_tf32: the three products, small terms
// first, go into a fresh fragment, which is then added to acc[j] with FP32
// rounding (gemm_tf32x3.cu's header says why: the tensor cores truncate
// when they accumulate). acc and bh / bl point at 4 consecutive pieces.
__device__ __forceinline__ void mma_tf32x3_n4(float (*acc)[4], const unsigned (&ah)[4],
                                              const unsigned (&al)[4], const unsigned (*bh)[2],
                                              const unsigned (*bl)[2]) {
  float t8[4][4];
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) t8[j][r] = 0.f;
#pragma unroll
  for (int j = 0; j < 4; ++j) mma_tf32(t8[j], al, bh[j]);
#pragma unroll
  for (int j = 0; j < 4; ++j) mma_tf32(t8[j], ah, bl[j]);
#pragma unroll
  for (int j = 0; j < 4; ++j) mma_tf32(t8[j], ah, bh[j]);
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[j][r] += t8[j][r];
}

}  // namespace dla::cuda::detail
