// Builds without CUDA: the batched device entry points exist and throw NotCompiled.
#include <string>

#include "dla/core/error.hpp"
#include "dla/solvers/batched_cuda.hpp"

namespace dla::cuda {
namespace {
[[noreturn]] void not_compiled(const char* what) {
  throw NotCompiled(std::string("dla::cuda::") + what + ": this build of dla has no CUDA support");
}
}  // namespace

#define DLA_BATCHED_STUBS(P, T)                                                                   \
  int P##getrf_batched(stream_t, index_t, T*, index_t, index_t, std::int32_t*, std::int32_t*,    \
                       index_t) {                                                                 \
    not_compiled(#P "getrf_batched");                                                             \
  }                                                                                               \
  int P##getrs_batched(stream_t, Op, index_t, index_t, const T*, index_t, index_t,                \
                       const std::int32_t*, T*, index_t, index_t, index_t) {                      \
    not_compiled(#P "getrs_batched");                                                             \
  }                                                                                               \
  int P##gesv_batched(stream_t, index_t, index_t, T*, index_t, index_t, std::int32_t*, T*,        \
                      index_t, index_t, std::int32_t*, index_t) {                                 \
    not_compiled(#P "gesv_batched");                                                              \
  }                                                                                               \
  int P##potrf_batched(stream_t, Uplo, index_t, T*, index_t, index_t, std::int32_t*, index_t) {  \
    not_compiled(#P "potrf_batched");                                                             \
  }                                                                                               \
  int P##potrs_batched(stream_t, Uplo, index_t, index_t, const T*, index_t, index_t, T*, index_t, \
                       index_t, index_t) {                                                        \
    not_compiled(#P "potrs_batched");                                                             \
  }                                                                                               \
  int P##posv_batched(stream_t, Uplo, index_t, index_t, T*, index_t, index_t, T*, index_t,        \
                      index_t, std::int32_t*, index_t) {                                          \
    not_compiled(#P "posv_batched");                                                              \
  }                                                                                               \
  int P##getrf_batched_ptr(stream_t, index_t, T* const*, index_t, std::int32_t*, std::int32_t*,  \
                           index_t) {                                                             \
    not_compiled(#P "getrf_batched_ptr");                                                         \
  }                                                                                               \
  int P##getrs_batched_ptr(stream_t, Op, index_t, index_t, const T* const*, index_t,              \
                           const std::int32_t*, T* const*, index_t, index_t) {                    \
    not_compiled(#P "getrs_batched_ptr");                                                         \
  }                                                                                               \
  int P##potrf_batched_ptr(stream_t, Uplo, index_t, T* const*, index_t, std::int32_t*, index_t) { \
    not_compiled(#P "potrf_batched_ptr");                                                         \
  }                                                                                               \
  int P##potrs_batched_ptr(stream_t, Uplo, index_t, index_t, const T* const*, index_t, T* const*, \
                           index_t, index_t) {                                                    \
    not_compiled(#P "potrs_batched_ptr");                                                         \
  }
DLA_BATCHED_STUBS(s, float)
DLA_BATCHED_STUBS(d, double)
#undef DLA_BATCHED_STUBS

}  // namespace dla::cuda
