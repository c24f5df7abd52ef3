#pragma once
// Device helpers shared by the benchmark suites: reproducible random inputs
// made on the GPU (never zeros), and the vendor library handles bound to the
// benchmark's stream.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstdint>

#include "dla/core/types.hpp"

namespace dla::bench {

// splitmix64 of x, mapped to [-1, 1).
__device__ inline double hash_uniform(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return double(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// x[i] uniform in [-1, 1), a pure function of (seed, i).
template <class T>
__global__ void fill_uniform(T* x, index_t count, std::uint64_t seed) {
  for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += index_t(gridDim.x) * blockDim.x)
    x[i] = T(hash_uniform(seed * 7919 + std::uint64_t(i)));
}

// cuSOLVER and cuBLAS handles on one stream (the baselines of a suite).
struct VendorHandles {
  cusolverDnHandle_t sol = nullptr;
  cublasHandle_t blas = nullptr;
  explicit VendorHandles(stream_t s) {
    cusolverDnCreate(&sol);
    cusolverDnSetStream(sol, reinterpret_cast<cudaStream_t>(s));
    cublasCreate(&blas);
    cublasSetStream(blas, reinterpret_cast<cudaStream_t>(s));
  }
  ~VendorHandles() {
    cusolverDnDestroy(sol);
    cublasDestroy(blas);
  }
  VendorHandles(const VendorHandles&) = delete;
  VendorHandles& operator=(const VendorHandles&) = delete;
};

}  // namespace dla::bench
