#pragma once
// cp.async (global -> shared memory, asynchronous) wrappers shared by dla's
// kernels: the tiled GEMMs (gemm/src/cuda) and the Cholesky's critical-path
// update (solvers/src/cuda/potrf_update.cuh). For dla's own CUDA sources;
// not part of the API a user includes.
#include <cuda_runtime.h>

namespace dla::cuda::detail {

// 16-byte copy of which only the first `bytes` (0, 4, 8, 12 or 16) are read;
// the rest of the 16 shared bytes are zero-filled.
__device__ __forceinline__ void cp_async16n(float* smem, const float* gmem, int bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void cp_async4(float* smem, const float* gmem, bool pred) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int n = pred ? 4 : 0;  // 0: zero-fill, nothing read
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(n));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

}  // namespace dla::cuda::detail
