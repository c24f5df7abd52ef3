// Builds without CUDA: the LU device entry points exist and throw NotCompiled.
#include <string>

#include "dla/core/error.hpp"
#include "dla/solvers/lu_cuda.hpp"

namespace dla::cuda {
namespace {
[[noreturn]] void not_compiled(const char* what) {
  throw NotCompiled(std::string(what) + ": this build of dla has no CUDA support");
}
}  // namespace

std::size_t sgetrf_buffer_size(index_t, index_t) { not_compiled("dla::cuda::sgetrf_buffer_size"); }
std::size_t dgetrf_buffer_size(index_t, index_t) { not_compiled("dla::cuda::dgetrf_buffer_size"); }
std::size_t sgetrf_buffer_size(index_t, index_t, const float*, index_t) {
  not_compiled("dla::cuda::sgetrf_buffer_size");
}
std::size_t dgetrf_buffer_size(index_t, index_t, const double*, index_t) {
  not_compiled("dla::cuda::dgetrf_buffer_size");
}
int sgetrf(stream_t, index_t, index_t, float*, index_t, std::int32_t*, int*, void*, std::size_t) {
  not_compiled("dla::cuda::sgetrf");
}
int dgetrf(stream_t, index_t, index_t, double*, index_t, std::int32_t*, int*, void*, std::size_t) {
  not_compiled("dla::cuda::dgetrf");
}
int sgetrs(stream_t, Op, index_t, index_t, const float*, index_t, const std::int32_t*, float*,
           index_t) {
  not_compiled("dla::cuda::sgetrs");
}
int dgetrs(stream_t, Op, index_t, index_t, const double*, index_t, const std::int32_t*, double*,
           index_t) {
  not_compiled("dla::cuda::dgetrs");
}
int sgesv(stream_t, index_t, index_t, float*, index_t, std::int32_t*, float*, index_t, int*,
          void*, std::size_t) {
  not_compiled("dla::cuda::sgesv");
}
int dgesv(stream_t, index_t, index_t, double*, index_t, std::int32_t*, double*, index_t, int*,
          void*, std::size_t) {
  not_compiled("dla::cuda::dgesv");
}
int slaswp(stream_t, index_t, float*, index_t, index_t, index_t, const std::int32_t*, bool) {
  not_compiled("dla::cuda::slaswp");
}
int dlaswp(stream_t, index_t, double*, index_t, index_t, index_t, const std::int32_t*, bool) {
  not_compiled("dla::cuda::dlaswp");
}
GetrfProfile getrf_last_profile() { return {}; }

}  // namespace dla::cuda
