#pragma once
// What the CUDA devices of this machine are, as far as dla cares.
#include <cstddef>
#include <string>

namespace dla {

struct DeviceInfo {
  int id = -1;
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;          // compute capability
  std::size_t total_memory = 0;            // bytes
  std::size_t free_memory = 0;             // bytes, at the time of the query
  std::size_t shared_memory_per_block_optin = 0;  // max dynamic smem after cudaFuncSetAttribute
  std::size_t shared_memory_per_sm = 0;
  std::size_t l2_cache = 0;
  int clock_khz = 0;
};

// Number of usable CUDA devices: 0 in a build without CUDA, with no driver or
// no device. Never throws.
int device_count();
bool cuda_compiled();  // whether this build contains the CUDA backend
// Throws DeviceError for an invalid id or when no device exists.
DeviceInfo device_info(int id = 0);

}  // namespace dla
