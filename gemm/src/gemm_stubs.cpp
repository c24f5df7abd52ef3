// Builds without CUDA: the device entry points exist and throw NotCompiled.
#include <string>

#include "dla/core/error.hpp"
#include "dla/gemm/gemm_cuda.hpp"

namespace dla::cuda {
namespace {
[[noreturn]] void not_compiled(const char* what) {
  throw NotCompiled(std::string(what) + ": this build of dla has no CUDA support");
}
}  // namespace

int sgemm(stream_t, Op, Op, index_t, index_t, index_t, float, const float*, index_t, const float*,
          index_t, float, float*, index_t, Fp32Gemm) {
  not_compiled("dla::cuda::sgemm");
}
int dgemm(stream_t, Op, Op, index_t, index_t, index_t, double, const double*, index_t,
          const double*, index_t, double, double*, index_t) {
  not_compiled("dla::cuda::dgemm");
}
int sgemmt(stream_t, Uplo, Op, Op, index_t, index_t, index_t, float, const float*, index_t,
           const float*, index_t, float, float*, index_t, Fp32Gemm) {
  not_compiled("dla::cuda::sgemmt");
}
int dgemmt(stream_t, Uplo, Op, Op, index_t, index_t, index_t, double, const double*, index_t,
           const double*, index_t, double, double*, index_t) {
  not_compiled("dla::cuda::dgemmt");
}
int ssyrk(stream_t, Uplo, Op, index_t, index_t, float, const float*, index_t, float, float*,
          index_t, Fp32Gemm) {
  not_compiled("dla::cuda::ssyrk");
}
int dsyrk(stream_t, Uplo, Op, index_t, index_t, double, const double*, index_t, double, double*,
          index_t) {
  not_compiled("dla::cuda::dsyrk");
}
std::vector<std::string> sgemm_variants() { return {}; }
bool sgemm_variant_available(const std::string&) { return false; }
std::string sgemm_auto_choice(index_t, index_t, index_t) {
  not_compiled("dla::cuda::sgemm_auto_choice");
}
std::string sgemm_auto_choice(Op, Op, index_t, index_t, index_t, index_t, index_t, Fp32Gemm) {
  not_compiled("dla::cuda::sgemm_auto_choice");
}
std::string sgemmt_auto_choice(Uplo, Op, Op, index_t, index_t, index_t, index_t, index_t,
                               Fp32Gemm) {
  not_compiled("dla::cuda::sgemmt_auto_choice");
}
std::string dgemm_auto_choice(index_t, index_t) { not_compiled("dla::cuda::dgemm_auto_choice"); }
std::string dgemmt_auto_choice(Uplo, index_t, index_t) {
  not_compiled("dla::cuda::dgemmt_auto_choice");
}
int sgemm_variant(const std::string&, stream_t, Op, Op, index_t, index_t, index_t, float,
                  const float*, index_t, const float*, index_t, float, float*, index_t) {
  not_compiled("dla::cuda::sgemm_variant");
}

}  // namespace dla::cuda
