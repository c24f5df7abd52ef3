#include "dla/core/device_info.hpp"

#include <string>

#include "dla/core/config.hpp"
#include "dla/core/error.hpp"
#if DLA_HAVE_CUDA
#include "dla/core/cuda_check.hpp"
#endif

namespace dla {

bool cuda_compiled() { return DLA_HAVE_CUDA != 0; }

int device_count() {
#if DLA_HAVE_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error here
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

DeviceInfo device_info(int id) {
#if DLA_HAVE_CUDA
  const int n = device_count();
  if (id < 0 || id >= n)
    throw DeviceError("device_info: no CUDA device " + std::to_string(id) + " (" +
                      std::to_string(n) + " present)");
  cudaDeviceProp p{};
  DLA_CUDA_CHECK(cudaGetDeviceProperties(&p, id));
  DeviceInfo d;
  d.id = id;
  d.name = p.name;
  d.sm_count = p.multiProcessorCount;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.total_memory = p.totalGlobalMem;
  d.shared_memory_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_memory_per_sm = p.sharedMemPerMultiprocessor;
  d.l2_cache = std::size_t(p.l2CacheSize);
  int clk = 0;
  if (cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, id) == cudaSuccess) d.clock_khz = clk;
  int prev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&prev));
  DLA_CUDA_CHECK(cudaSetDevice(id));
  std::size_t free_b = 0, total_b = 0;
  DLA_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  DLA_CUDA_CHECK(cudaSetDevice(prev));
  d.free_memory = free_b;
  return d;
#else
  throw NotCompiled("device_info(" + std::to_string(id) +
                    "): this build of dla has no CUDA backend (configure with DLA_CUDA=ON)");
#endif
}

}  // namespace dla
