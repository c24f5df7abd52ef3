// The FP32 product mode of dla's own routines (gemm_cuda.hpp: Fp32Gemm,
// solver_fp32_gemm). Host code, in every build: a build without CUDA keeps
// the setting too, it just never runs a device product.
#include <atomic>
#include <cstdlib>
#include <string>

#include "dla/core/error.hpp"
#include "dla/gemm/gemm_cuda.hpp"

namespace dla::cuda {
namespace {

// -1: not yet read from the environment.
std::atomic<int> g_solver_mode{-1};

// Unset: Tf32x3 where the Hopper warpgroup-MMA kernel runs (the current
// device at the first call), else Native (docs/gemm.md, session 19: on the
// H200 spotrf 8192 / 16384 and sgetrf 16384 ran 13-35% faster with it, the
// smaller sizes the same; with the older tensor-core kernels alone they ran
// slower, session 18).
Fp32Gemm from_environment() {
  const char* e = std::getenv("DLA_FP32_GEMM");
  if (e == nullptr || *e == '\0')
    return sgemm_variant_available("tf32x3_wgmma_128x128x32") ? Fp32Gemm::Tf32x3
                                                              : Fp32Gemm::Native;
  const std::string v(e);
  if (v == "native") return Fp32Gemm::Native;
  if (v == "tf32x3") return Fp32Gemm::Tf32x3;
  throw InvalidArgument("DLA_FP32_GEMM='" + v + "': expected 'native' or 'tf32x3'");
}

}  // namespace

const char* to_string(Fp32Gemm m) { return m == Fp32Gemm::Native ? "native" : "tf32x3"; }

Fp32Gemm solver_fp32_gemm() {
  int v = g_solver_mode.load(std::memory_order_relaxed);
  if (v < 0) {
    int expected = -1;
    const int env = int(from_environment());
    g_solver_mode.compare_exchange_strong(expected, env);  // a concurrent setter wins
    v = g_solver_mode.load(std::memory_order_relaxed);
  }
  return Fp32Gemm(v);
}

void set_solver_fp32_gemm(Fp32Gemm m) {
  if (m != Fp32Gemm::Native && m != Fp32Gemm::Tf32x3)
    throw InvalidArgument("set_solver_fp32_gemm: unknown mode " + std::to_string(int(m)));
  g_solver_mode.store(int(m), std::memory_order_relaxed);
}

}  // namespace dla::cuda
