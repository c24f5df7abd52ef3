#pragma once
// Device helpers shared by the benchmark suites: reproducible random inputs
// made on the GPU (never zeros), and the vendor library handles bound to the
// benchmark's stream.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "dla/core/cuda_check.hpp"
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

// cuBLAS pieces of the accuracy checks the factorization suites share.
template <class T>
double eps() { return double(std::numeric_limits<T>::epsilon()); }

// Y = alpha A X + beta Y, A n x n, X and Y n x r (all leading dimension n).
inline void check_gemm(cublasHandle_t h, int n, int r, float alpha, const float* A, const float* X,
                       float beta, float* Y) {
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, r, n, &alpha, A, n, X, n, &beta, Y, n);
}
inline void check_gemm(cublasHandle_t h, int n, int r, double alpha, const double* A,
                       const double* X, double beta, double* Y) {
  cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, r, n, &alpha, A, n, X, n, &beta, Y, n);
}
// y -= x
inline void check_sub(cublasHandle_t h, int n, const float* x, float* y) {
  const float m1 = -1;
  cublasSaxpy(h, n, &m1, x, 1, y, 1);
}
inline void check_sub(cublasHandle_t h, int n, const double* x, double* y) {
  const double m1 = -1;
  cublasDaxpy(h, n, &m1, x, 1, y, 1);
}
inline double check_nrm2(cublasHandle_t h, index_t n, const float* x) {
  float r = 0;
  cublasSnrm2(h, int(n), x, 1, &r);
  return r;
}
inline double check_nrm2(cublasHandle_t h, index_t n, const double* x) {
  double r = 0;
  cublasDnrm2(h, int(n), x, 1, &r);
  return r;
}

// Max-column backward error of A X = B (n x cols, all on the device, leading
// dimension n): ||A x - b|| / (||A|| ||x|| n eps). R: n x cols scratch.
template <class T>
double solve_error(VendorHandles& h, index_t n, index_t cols, const T* A0, const T* X, const T* B,
                   T* R) {
  DLA_CUDA_CHECK(cudaMemcpy(R, B, sizeof(T) * n * cols, cudaMemcpyDeviceToDevice));
  check_gemm(h.blas, int(n), int(cols), T(1), A0, X, T(-1), R);
  const double an = check_nrm2(h.blas, n * n, A0);
  double worst = 0;
  for (index_t j = 0; j < cols; ++j)
    worst = std::max(worst, check_nrm2(h.blas, n, R + j * n) /
                                (an * check_nrm2(h.blas, n, X + j * n) * double(n) * eps<T>()));
  return worst;
}

}  // namespace dla::bench
