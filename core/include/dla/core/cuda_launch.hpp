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
    attrs_[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs_[0].val.programmaticStreamSerializationAllowed = 1;
    cfg_.gridDim = grid;
    cfg_.blockDim = block;
    cfg_.dynamicSmemBytes = smem_bytes;
    cfg_.stream = stream;
    cfg_.attrs = attrs_;
    cfg_.numAttrs = programmatic ? 1 : 0;
  }
  KernelLaunch(const KernelLaunch&) = delete;
  KernelLaunch& operator=(const KernelLaunch&) = delete;

  void shape(dim3 grid, dim3 block, std::size_t smem_bytes) {
    cfg_.gridDim = grid;
    cfg_.blockDim = block;
    cfg_.dynamicSmemBytes = smem_bytes;
  }

  // Thread-block clusters of x CTAs along the grid's x (Hopper); the grid's
  // x must be a multiple of x. A second call changes the size.
  void cluster(unsigned x) {
    unsigned i = 0;
    while (i < cfg_.numAttrs && attrs_[i].id != cudaLaunchAttributeClusterDimension) ++i;
    if (i == cfg_.numAttrs) ++cfg_.numAttrs;  // at most the PDL attribute before it
    cudaLaunchAttribute& a = attrs_[i];
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = x;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
  }

  // Launches kernel(args...) and returns the launch call's status (the
  // caller checks it; for launches that may be refused, e.g. clusters).
  template <class... Params, class... Args>
  cudaError_t try_launch(void (*kernel)(Params...), Args&&... args) const {
    return cudaLaunchKernelEx(&cfg_, kernel, std::forward<Args>(args)...);
  }

  // Launches kernel(args...) and checks both the call and the launch.
  template <class... Params, class... Args>
  void operator()(void (*kernel)(Params...), Args&&... args) const {
    DLA_CUDA_CHECK(cudaLaunchKernelEx(&cfg_, kernel, std::forward<Args>(args)...));
    DLA_CUDA_CHECK_LAUNCH();
  }

 private:
  cudaLaunchAttribute attrs_[2]{};
  cudaLaunchConfig_t cfg_{};
};

}  // namespace dla::detail
