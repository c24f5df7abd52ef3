#pragma once
// Kernel launches through cudaLaunchKernelEx, optionally as a programmatic
// dependent launch (PDL): the kernel may start while the kernel before it on
// the stream ends, and must itself run `griddepcontrol.wait` before touching
// memory that kernel writes. For dla's own sources built with CUDA; not part
// of the API a user includes.
#include <cstddef>
#include <utility>

#include <cuda_runtime.h>

#include "dla/core/cuda_check.hpp"

namespace dla::detail {

// One launch configuration, reusable for several launches (change grid,
// block or shared bytes between them). Not copyable: the configuration
// points at the attribute it owns.
class KernelLaunch {
 public:
  KernelLaunch(cudaStream_t stream, dim3 grid, dim3 block, std::size_t smem_bytes,
               bool programmatic) {
    attr_.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr_.val.programmaticStreamSerializationAllowed = 1;
    cfg_.gridDim = grid;
    cfg_.blockDim = block;
    cfg_.dynamicSmemBytes = smem_bytes;
    cfg_.stream = stream;
    cfg_.attrs = &attr_;
    cfg_.numAttrs = programmatic ? 1 : 0;
  }
  KernelLaunch(const KernelLaunch&) = delete;
  KernelLaunch& operator=(const KernelLaunch&) = delete;

  void shape(dim3 grid, dim3 block, std::size_t smem_bytes) {
    cfg_.gridDim = grid;
    cfg_.blockDim = block;
    cfg_.dynamicSmemBytes = smem_bytes;
  }

  // Launches kernel(args...) and checks both the call and the launch.
  template <class... Params, class... Args>
  void operator()(void (*kernel)(Params...), Args&&... args) const {
    DLA_CUDA_CHECK(cudaLaunchKernelEx(&cfg_, kernel, std::forward<Args>(args)...));
    DLA_CUDA_CHECK_LAUNCH();
  }

 private:
  cudaLaunchAttribute attr_{};
  cudaLaunchConfig_t cfg_{};
};

}  // namespace dla::detail
