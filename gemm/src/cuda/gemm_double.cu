// DGEMM: the register-tiled kernel with a 64x64x8 block tile, 4x4 outputs
// per thread (256 threads); guarded loads, so any shape and op combination.
#include "gemm_kernels.cuh"
#include "gemm_reg_tiled.cuh"

namespace dla::cuda::detail {

void launch_dgemm(stream_t s, const GemmArgs<double>& g) {
  launch_reg_tiled<double, 64, 64, 8, 4, 4>(s, g);
}

}  // namespace dla::cuda::detail
