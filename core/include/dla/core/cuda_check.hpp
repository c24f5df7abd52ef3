#pragma once
// Error checking for CUDA runtime calls and kernel launches. For dla's own
// sources built with CUDA; not part of the API a user includes.
#include <cuda_runtime.h>

#include "dla/core/error.hpp"

namespace dla::detail {
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
}

// Every CUDA runtime call goes through this.
#define DLA_CUDA_CHECK(expr)                                                  \
  do {                                                                        \
    cudaError_t dla_err_ = (expr);                                            \
    if (dla_err_ != cudaSuccess)                                              \
      ::dla::detail::throw_cuda_error(dla_err_, #expr, __FILE__, __LINE__);   \
  } while (0)

// After every kernel launch: reports a bad launch configuration at once.
#define DLA_CUDA_CHECK_LAUNCH() DLA_CUDA_CHECK(cudaGetLastError())
