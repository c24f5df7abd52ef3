#pragma once
// Launchers of every GEMM kernel family. Each expects validated arguments
// with m, n, k > 0 and alpha != 0 (the dispatcher handles the trivial cases).
#include <string>
#include <vector>

#include "gemm_common.cuh"

namespace dla::cuda::detail {

using SgemmLauncher = void (*)(stream_t, const GemmArgs<float>&);

// Seed progression (gemm_seed.cu).
void launch_naive(stream_t s, const GemmArgs<float>& g);
void launch_smem32(stream_t s, const GemmArgs<float>& g);
void launch_smem32_vec4(stream_t s, const GemmArgs<float>& g);
void launch_volkov_nn(stream_t s, const GemmArgs<float>& g);
void launch_reg128(stream_t s, const GemmArgs<float>& g);
void launch_reg128_vec4_db(stream_t s, const GemmArgs<float>& g);

// Tuned kernel configurations (gemm_tuned.cu). split_k == 0: the config's own
// choice (1 unless a deep-K shape needs more); > 1 forces that many slices.
struct TunedConfig {
  const char* name;
  int bm, bn, bk, stages;
  void (*launch)(stream_t, const GemmArgs<float>&, int split_k);
};
const std::vector<TunedConfig>& tuned_configs();
// Split-K slices that fill the device for this config and shape (1 = none).
int default_split_k(const TunedConfig& c, index_t m, index_t n, index_t k);

// DGEMM (gemm_double.cu).
void launch_dgemm(stream_t s, const GemmArgs<double>& g);

// Device facts read once (cudaGetDeviceProperties of the current device, cached per device).
struct DeviceLimits {
  int sm_count;
  int smem_optin;  // bytes of dynamic shared memory per block after opt-in
};
const DeviceLimits& device_limits();

}  // namespace dla::cuda::detail
