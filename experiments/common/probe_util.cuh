#pragma once
// Shared by the standalone probes in experiments/ (one translation unit
// each): the error check and a random SPD matrix made on the device.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

// A (n x n, column-major): symmetric, entries in [-1, 1) from a hash of the
// (min, max) index pair and `seed`, diagonal shifted by 3 sqrt(n) + 1 (SPD,
// condition number around 3, as the bench's matrices).
__global__ void probe_make_spd(float* A, int n, unsigned seed) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < (long long)n * n;
       e += (long long)gridDim.x * blockDim.x) {
    const int i = int(e % n), j = int(e / n);
    const unsigned a = min(i, j), b = max(i, j);
    unsigned h = (a * 2654435761u) ^ (b * 40503u + seed);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    float v = float(h & 0xffffff) / float(0x1000000) * 2.f - 1.f;
    if (i == j) v += 3.f * sqrtf(float(n)) + 1.f;
    A[e] = v;
  }
}

// The lower Cholesky factor of the n x n SPD matrix A (column-major, float),
// in float64 on the host: the reference the probes check their factors
// against (R[i + j n], zero above the diagonal).
inline std::vector<double> probe_cholesky_f64(const std::vector<float>& A, int n) {
  std::vector<double> R(size_t(n) * n, 0.0);
  for (int j = 0; j < n; ++j) {
    double d = A[j + size_t(j) * n];
    for (int k = 0; k < j; ++k) d -= R[j + size_t(k) * n] * R[j + size_t(k) * n];
    R[j + size_t(j) * n] = std::sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double v = A[i + size_t(j) * n];
      for (int k = 0; k < j; ++k) v -= R[i + size_t(k) * n] * R[j + size_t(k) * n];
      R[i + size_t(j) * n] = v / R[j + size_t(j) * n];
    }
  }
  return R;
}
