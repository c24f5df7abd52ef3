// Builds without CUDA: the device Cholesky entry points throw NotCompiled.
#include "dla/core/error.hpp"
#include "dla/solvers/cholesky_cuda.hpp"

namespace dla::cuda {
namespace {
[[noreturn]] void nc(const char* what) {
  throw NotCompiled(std::string(what) + ": this build of dla has no CUDA support");
}
}  // namespace

bool potrf_tensor_core_updates(bool) { nc("dla::cuda::potrf_tensor_core_updates"); }
int spotrf(stream_t, Uplo, index_t, float*, index_t, int*, void*, std::size_t) { nc("dla::cuda::spotrf"); }
int dpotrf(stream_t, Uplo, index_t, double*, index_t, int*, void*, std::size_t) { nc("dla::cuda::dpotrf"); }
int spotrs(stream_t, Uplo, index_t, index_t, const float*, index_t, float*, index_t) {
  nc("dla::cuda::spotrs");
}
int dpotrs(stream_t, Uplo, index_t, index_t, const double*, index_t, double*, index_t) {
  nc("dla::cuda::dpotrs");
}
int sposv(stream_t, Uplo, index_t, index_t, float*, index_t, float*, index_t, int*, void*,
          std::size_t) {
  nc("dla::cuda::sposv");
}
int dposv(stream_t, Uplo, index_t, index_t, double*, index_t, double*, index_t, int*, void*,
          std::size_t) {
  nc("dla::cuda::dposv");
}

}  // namespace dla::cuda
