#pragma once
// smallest_normal<T>(): LAPACK's sfmin (FLT_MIN / DBL_MIN). Below it a
// reciprocal may overflow, so LAPACK (getf2) and BLAS (trsm) divide by such
// a pivot or diagonal entry instead of multiplying by its reciprocal; the
// device kernels that keep reciprocals (getrf's panel leaves, the trsm
// leaves and sweep) do the same (docs/lu.md, session 45).
#include <cfloat>

namespace dla::cuda::detail {

template <class T>
__host__ __device__ constexpr T smallest_normal() {
  return sizeof(T) == 4 ? T(FLT_MIN) : T(DBL_MIN);
}

// The kernels do not call the division routine (its call costs registers in
// unrolled code: the FP64 panel leaf spilled 4 KB more with it). x / d for
// |d| below sfmin is computed as (x * 2^64) * (1 / (d * 2^64)): the scalings
// are exact (d * 2^64 is normal for every subnormal d, in float and double),
// so the error is that of a multiplication by a reciprocal, as for every
// other d. x * 2^64 overflows only where x / d would (|x / d| > 2^64 / sfmin
// is past the largest float and double). For |d| >= sfmin the scale is 1 and
// the result is bit for bit x * (1 / d).
template <class T>
__host__ __device__ constexpr T tiny_scale(bool tiny) {
  return tiny ? T(18446744073709551616.0) : T(1);  // 2^64
}

}  // namespace dla::cuda::detail
