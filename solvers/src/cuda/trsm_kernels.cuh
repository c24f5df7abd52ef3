#pragma once
// Leaf kernel of the recursive triangular solve: M x = alpha b for many
// vectors x, with M a small (k <= NB) triangle held in shared memory.
//
// The vectors are either columns of B (side Left: elements contiguous, vectors
// ldb apart) or rows of B (side Right: elements ldb apart, vectors contiguous);
// the caller passes the strides. M(i, j) = trans ? A(j, i) : A(i, j); only the
// stored triangle of A is read, and with `unit` its diagonal is not read.
//
// Parallel over both the vectors and the elements: a block of 256 threads owns
// a tile of VB = 256 / G vectors (grid-stride over the tiles); the G lanes of
// one vector (G consecutive lanes of one warp) each hold NB / G of its
// elements in registers (element e = g + G q). Step i of the substitution:
// the owner lane of element i scales it (by 1 / M(i, i), precomputed), a warp
// shuffle broadcasts it to the vector's other lanes, and every lane updates
// its elements below (above) i. No __syncthreads inside the sweep: the
// critical path is NB x (shuffle + multiply + FMA), about 2-3 k cycles.
// The sweep is a rolled loop: fully unrolled it was NB x ~40 instructions
// run once each, every one an instruction-cache miss (ncu: ~86 us for a
// 128-triangle on 16 vectors instead of ~10).
// The tile of B goes through shared memory so that the global loads and stores
// are coalesced for both strides.
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/types.hpp"

namespace dla::cuda::detail {

constexpr int kTrsmLeafThreads = 256;

template <class T, int NB, int G>
constexpr std::size_t trsm_leaf_smem_bytes() {
  constexpr int VB = kTrsmLeafThreads / G;
  return sizeof(T) * std::size_t(NB * (NB + 1) + NB * (VB + 1) + NB);
}

template <class T, int NB, int G>
__global__ void __launch_bounds__(kTrsmLeafThreads)
    trsm_leaf_kernel(const T* __restrict__ A, index_t lda, int k, bool trans, bool lower,
                     bool unit, T* B, index_t estride, index_t vstride, index_t nvec, T alpha) {
  constexpr int NT = kTrsmLeafThreads, VB = NT / G, R = NB / G;
  static_assert(32 % G == 0 && NB % G == 0 && (NB * NB) % NT == 0 && (NB * VB) % NT == 0,
                "trsm leaf tiling");
  // Dynamic shared memory, trsm_leaf_smem_bytes<T, NB, G>() bytes:
  //   Ms[NB][NB + 1]  strictly triangular part of M, zero elsewhere
  //   Xs[NB][VB + 1]  Xs[e][v]: element e of vector v of the tile
  //   rdiag[NB]       1 / M(i, i) (1 with `unit`, 0 beyond k)
  extern __shared__ __align__(16) unsigned char trsm_smem[];
  T(*Ms)[NB + 1] = reinterpret_cast<T(*)[NB + 1]>(trsm_smem);
  T(*Xs)[VB + 1] = reinterpret_cast<T(*)[VB + 1]>(trsm_smem + sizeof(T) * NB * (NB + 1));
  T* rdiag = reinterpret_cast<T*>(trsm_smem + sizeof(T) * NB * (NB + 1 + VB + 1));
  const int tid = threadIdx.x;
  // Triangle: the fast index follows A's contiguous dimension (coalesced);
  // 16 independent loads in flight per thread (NB = 64: all of them).
#pragma unroll 16
  for (int t = 0; t < NB * NB / NT; ++t) {
    const int idx = tid + t * NT;
    const int f = idx % NB, s = idx / NB;
    const int i = trans ? s : f, j = trans ? f : s;  // M(i, j) = A(f + s lda)
    const bool in_tri = lower ? (i > j) : (i < j);
    T v = T(0);
    if (i < k && j < k && in_tri) v = A[f + index_t(s) * lda];
    Ms[i][j] = v;
    if (i == j) rdiag[i] = i < k ? (unit ? T(1) : T(1) / A[f + index_t(s) * lda]) : T(0);
  }
  const int g = tid % G, vl = tid / G;
  const bool econtig = estride == 1;
  const index_t ntiles = (nvec + VB - 1) / VB;
  for (index_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const index_t v0 = tile * VB;
#pragma unroll
    for (int t = 0; t < NB * VB / NT; ++t) {
      const int idx = tid + t * NT;
      const int e = econtig ? idx % NB : idx / VB, v = econtig ? idx / NB : idx % VB;
      T x = T(0);
      if (e < k && v0 + v < nvec) x = alpha * B[(v0 + v) * vstride + index_t(e) * estride];
      Xs[e][v] = x;
    }
    __syncthreads();  // also orders the triangle fill before the first sweep
    T x[R];
#pragma unroll
    for (int q = 0; q < R; ++q) x[q] = Xs[g + G * q][vl];
    // Rolled step loops (see the header comment): x[i / G] is read and
    // written through unrolled selects over q.
    auto step = [&](int i) {
      const int qi = i / G, gi = i % G;
      T own = T(0);
#pragma unroll
      for (int q = 0; q < R; ++q)
        if (q == qi) own = x[q];
      const T xi = __shfl_sync(0xffffffffu, own, gi, G) * rdiag[i];
      if (g == gi) {
#pragma unroll
        for (int q = 0; q < R; ++q)
          if (q == qi) x[q] = xi;
      }
#pragma unroll
      for (int q = 0; q < R; ++q) {
        const int r = g + G * q;
        if (lower ? r > i : r < i) x[q] -= Ms[r][i] * xi;
      }
    };
    if (lower) {
#pragma unroll 1
      for (int i = 0; i < k; ++i) step(i);
    } else {
#pragma unroll 1
      for (int i = k - 1; i >= 0; --i) step(i);
    }
#pragma unroll
    for (int q = 0; q < R; ++q) Xs[g + G * q][vl] = x[q];  // own slots: no hazard
    __syncthreads();
#pragma unroll
    for (int t = 0; t < NB * VB / NT; ++t) {
      const int idx = tid + t * NT;
      const int e = econtig ? idx % NB : idx / VB, v = econtig ? idx / NB : idx % VB;
      if (e < k && v0 + v < nvec) B[(v0 + v) * vstride + index_t(e) * estride] = Xs[e][v];
    }
    __syncthreads();  // Xs is refilled by the next tile
  }
}

template <class T>
__global__ void scale_matrix_kernel(T* B, index_t ldb, index_t m, index_t n, T alpha) {
  const index_t total = m * n;
  for (index_t idx = index_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += index_t(gridDim.x) * blockDim.x) {
    const index_t i = idx % m, j = idx / m;
    T* p = B + i + j * ldb;
    *p = alpha == T(0) ? T(0) : alpha * *p;
  }
}

}  // namespace dla::cuda::detail
