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

}  // namespace dla::cuda::detail
