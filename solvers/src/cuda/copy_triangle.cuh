#pragma once
// Copies the lower or upper triangle (diagonal included) of an n x n
// column-major matrix between two leading dimensions. spotrf uses it to factor
// a misaligned A in an aligned workspace (potrf_pads, cholesky_cuda.hpp).
// Only the triangle is read and written: the other strict triangle and the
// padding rows of either matrix are not touched.
#include <cuda_runtime.h>

#include "dla/core/cuda_check.hpp"
#include "dla/core/types.hpp"

namespace dla::cuda::detail {

constexpr int kCopyTriTile = 32;

// A kCopyTriTile x kCopyTriTile tile per block (32 x 8 threads, a thread per
// row and 4 columns), tiles wholly outside the triangle leave at once. The y
// grid strides over the column tiles (gridDim.y <= 65535).
template <class T>
__global__ void __launch_bounds__(256)
    copy_triangle_kernel(const T* __restrict__ src, index_t lds, T* __restrict__ dst, index_t ldd,
                         index_t n, bool upper) {
  const index_t i = index_t(blockIdx.x) * kCopyTriTile + threadIdx.x;
  for (index_t tj = blockIdx.y; tj * kCopyTriTile < n; tj += gridDim.y) {
    const index_t j0 = tj * kCopyTriTile, i0 = index_t(blockIdx.x) * kCopyTriTile;
    // The tile's rows i0..i0+31 against columns j0..j0+31.
    if (upper ? i0 > j0 + kCopyTriTile - 1 : i0 + kCopyTriTile - 1 < j0) continue;
    if (i >= n) continue;
#pragma unroll
    for (int c = 0; c < kCopyTriTile; c += 8) {
      const index_t j = j0 + c + threadIdx.y;
      if (j < n && (upper ? i <= j : i >= j)) dst[i + j * ldd] = src[i + j * lds];
    }
  }
}

template <class T>
void copy_triangle(cudaStream_t s, bool upper, index_t n, const T* src, index_t lds, T* dst,
                   index_t ldd) {
  if (n <= 0) return;
  const index_t tiles = (n + kCopyTriTile - 1) / kCopyTriTile;
  const dim3 grid(unsigned(tiles), unsigned(tiles < 65535 ? tiles : 65535));
  copy_triangle_kernel<T><<<grid, dim3(kCopyTriTile, 8), 0, s>>>(src, lds, dst, ldd, n, upper);
  DLA_CUDA_CHECK_LAUNCH();
}

}  // namespace dla::cuda::detail
