#pragma once
// Launchers of every GEMM kernel family. Each expects validated arguments
// with m, n, k > 0 and alpha != 0 (the dispatcher handles the trivial cases).
#include <cstddef>
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

// How a tuned launch divides k among blocks. The tiles are taken in the
// launch's rasterized order: the first `whole` are computed over all of k and
// stored straight to C; each of the others is split into `slices` k-ranges
// whose blocks store raw partial tiles to scratch memory, and a second kernel
// sums them in slice order (deterministic: no atomics) and applies alpha and
// beta. slices <= 1: every tile whole. whole = 0: classic split-K (deep k,
// few tiles); whole = the tiles of the full waves: only the last, partial wave
// is split, so it occupies the device instead of a few SMs.
struct KSplit {
  int slices = 1;
  index_t whole = 0;
};

// Tuned kernel configurations (gemm_tuned.cu).
struct TunedConfig {
  const char* name;
  int bm, bn, bk, stages;
  int blocks_per_sm;  // the kernel's __launch_bounds__ minimum (what fits per SM)
  void (*launch)(stream_t, const GemmArgs<float>&, KSplit split);
};
const std::vector<TunedConfig>& tuned_configs();
// Split-K slices that fill the device for this config and shape (1 = none).
int default_split_k(const TunedConfig& c, index_t m, index_t n, index_t k);

// FP32 emulated on the tensor cores, 3xTF32 (gemm_tf32x3.cu): named configs,
// never split along k.
struct Tf32x3Config {
  const char* name;
  int bm, bn, bk, stages;
  int blocks_per_sm;  // the kernel's __launch_bounds__ minimum
  void (*launch)(stream_t, const GemmArgs<float>&);
};
const std::vector<Tf32x3Config>& tf32x3_configs();  // all of them, including:
// the Hopper warpgroup-MMA configs (gemm_tf32x3_wgmma.cu, sm_90a code): they
// run on compute capability 9.0 devices only (their launch throws DeviceError
// elsewhere), which tf32x3_wgmma_supported() tells for the current device.
const std::vector<Tf32x3Config>& tf32x3_wgmma_configs();
bool tf32x3_wgmma_supported();

// Copies op(X)'s O x K block, element (o, p) = X[p + o*ld] when kcontig else
// X[o + p*ld], into dst with o contiguous: dst[o + p*ldd] (gemm_pack.cu).
void pack_operand(stream_t s, bool kcontig, index_t O, index_t K, const float* X, index_t ld,
                  float* dst, index_t ldd);

// Stream-ordered scratch memory from dla's own memory pool (gemm_scratch.cu).
// get() == nullptr when bytes == 0 or the device is out of memory: callers
// then take a path that needs none. Freed, stream-ordered, on destruction.
class Scratch {
 public:
  Scratch(stream_t s, std::size_t bytes);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* get() const { return ptr_; }

 private:
  stream_t stream_;
  void* ptr_ = nullptr;
};

// DGEMM (gemm_double.cu): the kernel for an m x n C (tri: the part computed)
// by name (dgemm_auto_choice), and the launch.
std::string dgemm_choice(index_t m, index_t n, int tri);
void launch_dgemm(stream_t s, const GemmArgs<double>& g);

// Device facts read once (cudaGetDeviceProperties of the current device, cached per device).
struct DeviceLimits {
  int sm_count;
  int smem_optin;  // bytes of dynamic shared memory per block after opt-in
  int cc;          // compute capability, 10 major + minor (90: Hopper)
};
const DeviceLimits& device_limits();

}  // namespace dla::cuda::detail
