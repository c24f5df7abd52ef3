// The block size of the device LU (dla::cuda::sgetrf/dgetrf), in one place for
// CUDA and CPU-only builds (as potrf_blocking.cpp for the Cholesky), chosen
// from sweeps on the H200 (docs/lu.md); DLA_GETRF_NB overrides it for tuning.
// Also the rule for factoring a misaligned A in an aligned copy (getrf_pads).
#include <cstdlib>

#include "dla/solvers/lu_cuda.hpp"
#include "env_knob.hpp"

namespace dla::cuda {

index_t getrf_block_size(index_t m, index_t n) {
  if (const char* e = std::getenv("DLA_GETRF_NB")) {
    const long v = std::strtol(e, nullptr, 10);
    if (v >= 1) return index_t(v);
  }
  // H200 sweeps (DLA_GETRF_NB). Session 6, cluster leaf with pushed rows,
  // swaps inside the leaves: n = 4096: nb 64/128/192/256 = 8.7/9.5/10.5/10.6
  // ms; n = 8192: 29.7/25.2/26.1/26.6 ms. (2026-11-29, the older leaf:
  // 4096: 128/256/384 = 16.1/16.9/18.3; 8192: 38.9/41.0/44.2.)
  const index_t k = m < n ? m : n;
  if (k <= 6144) return 64;
  if (k <= 12288) return 128;
  return 256;
}

bool getrf_pads(index_t m, index_t n) {
  static const int env = detail::env_yes_no("DLA_GETRF_PAD");
  if (env >= 0) return env == 1;
  // Session 49, H100, sgetrf native, lda = n: 4097 9.96 ms against 4096's
  // 7.60; session 50's profiled split put it in the trailing GEMM (5.9
  // against 3.2 ms), whose 16-byte paths need an aligned lda. The copy in and out moves
  // 4 m n sizeof(T) bytes (~0.1 ms at 4097 in float).
  return (m < n ? m : n) >= kGetrfPadMin;
}

}  // namespace dla::cuda
