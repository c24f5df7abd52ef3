// Builds without CUDA: the device triangular solves throw NotCompiled.
#include <string>

#include "dla/core/error.hpp"
#include "dla/solvers/trsm_cuda.hpp"

namespace dla::cuda {

int strsm(stream_t, Side, Uplo, Op, Diag, index_t, index_t, float, const float*, index_t, float*,
          index_t) {
  throw NotCompiled("dla::cuda::strsm: this build of dla has no CUDA support");
}
int dtrsm(stream_t, Side, Uplo, Op, Diag, index_t, index_t, double, const double*, index_t,
          double*, index_t) {
  throw NotCompiled("dla::cuda::dtrsm: this build of dla has no CUDA support");
}

}  // namespace dla::cuda
