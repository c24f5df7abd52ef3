#pragma once
// Vector loads and stores of shared memory shared by the solver kernels (trsm's row
// leaf, the batched row and blocked kernels).
#include <cuda_runtime.h>

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

// One 4- or 8-byte element global -> shared by cp.async (sm_80+): the copy
// holds no register while in flight, so a warp can have a whole matrix of
// them outstanding. Zero-filled, the source not read, when !valid (callers
// still pass a valid address). Completed by cp_async_wait_all() or a
// commit_group / wait_group pair.
template <class T>
__device__ __forceinline__ void cp_async_elem(T* sdst, const T* gsrc, bool valid = true) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async element size");
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(sdst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(gsrc),
               "n"(int(sizeof(T))), "r"(valid ? int(sizeof(T)) : 0)
               : "memory");
}
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
