// Operand packing for the SGEMM dispatcher: copies op(X) into a buffer whose
// columns run along m (for A) or n (for B) with a leading dimension that is a
// multiple of 32 floats, so the tuned kernel can use 16-byte cp.async on it.
// Used for operands the kernel would otherwise copy with 4-byte cp.async:
// unaligned ones (ld % 4 != 0 or a pointer off 16 bytes, e.g. 3001^2 or 4097^2
// matrices) and, where it pays, k-contiguous ones.
#include <algorithm>

#include "gemm_kernels.cuh"

namespace dla::cuda::detail {
namespace {

constexpr int kTile = 32;  // 32 x 32 tile per block, 32 x 8 threads

// dst[o + p*ldd] = KCONTIG ? X[p + o*ld] : X[o + p*ld] for o < O, p < K.
// Both the reads and the writes are coalesced: the tile goes through shared
// memory (padded row: no bank conflicts on the transposed side).
template <bool KCONTIG>
__global__ void __launch_bounds__(256) pack_kernel(index_t O, index_t K, const float* X,
                                                   index_t ld, float* dst, index_t ldd) {
  __shared__ float tile[kTile][kTile + 1];
  const index_t o0 = index_t(blockIdx.x) * kTile;
  const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
  for (index_t p0 = index_t(blockIdx.y) * kTile; p0 < K; p0 += index_t(gridDim.y) * kTile) {
    if (KCONTIG) {
      // Read along p (contiguous in X), write along o.
#pragma unroll
      for (int r = ty; r < kTile; r += 8) {
        const index_t o = o0 + r, p = p0 + tx;
        if (o < O && p < K) tile[r][tx] = X[p + o * ld];
      }
      __syncthreads();
#pragma unroll
      for (int r = ty; r < kTile; r += 8) {
        const index_t o = o0 + tx, p = p0 + r;
        if (o < O && p < K) dst[o + p * ldd] = tile[tx][r];
      }
    } else {
#pragma unroll
      for (int r = ty; r < kTile; r += 8) {
        const index_t o = o0 + tx, p = p0 + r;
        if (o < O && p < K) dst[o + p * ldd] = X[o + p * ld];
      }
    }
    if (KCONTIG) __syncthreads();  // the tile is rewritten next iteration
  }
}

}  // namespace

void pack_operand(stream_t s, bool kcontig, index_t O, index_t K, const float* X, index_t ld,
                  float* dst, index_t ldd) {
  if (O == 0 || K == 0) return;
  const index_t bo = (O + kTile - 1) / kTile, bk = (K + kTile - 1) / kTile;
  if (bo > index_t(INT32_MAX))
    throw InvalidArgument("sgemm: operand of " + std::to_string(O) + " rows is too large to pack");
  const dim3 grid(unsigned(bo), unsigned(std::min<index_t>(bk, 65535)));
  if (kcontig)
    pack_kernel<true><<<grid, 256, 0, s>>>(O, K, X, ld, dst, ldd);
  else
    pack_kernel<false><<<grid, 256, 0, s>>>(O, K, X, ld, dst, ldd);
  DLA_CUDA_CHECK_LAUNCH();
}

}  // namespace dla::cuda::detail
