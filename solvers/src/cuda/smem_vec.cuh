#pragma once
// Vector loads and stores of shared memory shared by the solver kernels (trsm's row
// leaf, the batched row and blocked kernels), and their cp.async helpers.
#include <cuda_runtime.h>

#include "dla/core/cuda_cp_async.cuh"

namespace dla::cuda::detail {

// v[0..3] = p[0..3], p 16-byte aligned shared memory: one 128-bit load for
// float, two for double.
template <class T>
__device__ __forceinline__ void load4_aligned(const T* p, T* v) {
  if constexpr (sizeof(T) == 4) {
    const float4 x = *reinterpret_cast<const float4*>(p);
    v[0] = x.x; v[1] = x.y; v[2] = x.z; v[3] = x.w;
  } else {
    const double2 x = *reinterpret_cast<const double2*>(p);
    const double2 y = *reinterpret_cast<const double2*>(p + 2);
    v[0] = x.x; v[1] = x.y; v[2] = y.x; v[3] = y.y;
  }
}

// p[0..3] = v[0..3], the same layout.
template <class T>
__device__ __forceinline__ void store4_aligned(T* p, const T* v) {
  if constexpr (sizeof(T) == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    *reinterpret_cast<double2*>(p) = make_double2(v[0], v[1]);
    *reinterpret_cast<double2*>(p + 2) = make_double2(v[2], v[3]);
  }
}

// cp_async_elem (one 4- or 8-byte element, sm_80+) is dla/core/cuda_cp_async.cuh's;
// complete it with cp_async_wait_all() or a commit_group / wait_group pair.

// 16 bytes global -> shared by cp.async, both addresses 16-byte aligned;
// .cg: cached in L2 only (the data is used once, from shared memory).
__device__ __forceinline__ void cp_async_16(void* sdst, const void* gsrc) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(sdst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gsrc) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

}  // namespace dla::cuda::detail
