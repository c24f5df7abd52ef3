#pragma once
// cp.async (global -> shared memory, asynchronous) wrappers shared by dla's
// kernels: the tiled GEMMs (gemm/src/cuda), the Cholesky's critical-path
// update (solvers/src/cuda/potrf_update.cuh) and the solver kernels that
// stage through shared memory (solvers/src/cuda/smem_vec.cuh). For dla's own CUDA sources;
// not part of the API a user includes.
#include <cuda_runtime.h>

namespace dla::cuda::detail {

// 16-byte copy of which only the first `bytes` (0 to 16, a multiple of the
// element size) are read; the rest of the 16 shared bytes are zero-filled.
template <class T>
__device__ __forceinline__ void cp_async16n(T* smem, const T* gmem, int bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
// One 4- or 8-byte element; pred false: zero-filled, the source not read
// (callers still pass a valid address). The copy holds no register while in
// flight, so a warp can have a whole tile of them outstanding.
template <class T>
__device__ __forceinline__ void cp_async_elem(T* smem, const T* gmem, bool pred = true) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4, 8 or 16 bytes");
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int n = pred ? int(sizeof(T)) : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(gmem),
               "n"(int(sizeof(T))), "r"(n));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

}  // namespace dla::cuda::detail
