#pragma once
// Triangular solve with few right-hand sides in ONE launch: op(A) X = alpha B,
// side Left, B of n <= a few dozen columns (potrs / getrs with few RHS).
//
// The recursive trsm (trsm.cu) is latency bound there: ~m / 64 leaf launches
// and as many GEMMs with n = nrhs columns, each a few percent of the device.
// This kernel is a chain of thread blocks instead. In "processing order"
// (forward for a lower op(A), from the bottom for an upper one, where row u
// is global row m - 1 - u) op(A) is lower triangular; block p owns processing
// rows 64 p .. 64 p + 63 and one group of kSweepRhs right-hand sides:
//
//   start:  take a ticket p (atomicAdd: blocks only wait for earlier tickets,
//           which are already running, so the chain cannot deadlock whatever
//           order the hardware schedules the blocks in);
//           r = alpha B(rows of p); invert the 64 x 64 diagonal tile of M
//           (substitution in shared memory, before any wait);
//   q = 0 .. p-1: r -= M(p, q) X(q), waiting for block q's X only when it is
//           needed (one `done` counter per group: done = q + 1 means X of
//           blocks 0..q is in B; blocks publish in order). The tiles of A are
//           read one ahead into registers, so the stream of A overlaps the
//           waits; X(q) is read through L2 (__ldcg: another SM wrote it);
//   end:    X(p) = inv(M(p, p)) r (by substitution instead where the
//           inverse is unsafe: a diagonal entry below sfmin, or an entry of
//           the inverse that overflowed), stored into B; fence; done = p + 1.
//
// The chain per block is then: see done, read 64 x 16 of X from L2, one tile
// product, the inverse product, the store and the fence; the rest of the work
// (streaming A, about m^2 / 2 elements in total) runs in parallel under it.
// The diagonal tile goes through its explicit inverse, as in the LU's U12
// (docs/lu.md); inverting a triangle of order 64 by substitution costs a
// rounding error of the order of cond(M(p, p)) eps, like the blocked
// substitution it replaces.
//
// M(i, j) = trans ? A(j, i) : A(i, j); only the stored triangle of A is read,
// and with `unit` its diagonal is not read. Rows of B beyond m are never
// touched. Tile loads follow A's contiguous dimension (coalesced) in batches
// of 16 unconditional loads from valid addresses.
#include <cuda_runtime.h>

#include <cstddef>

#include "dla/core/types.hpp"
#include "sfmin.cuh"
#include "smem_vec.cuh"

namespace dla::cuda::detail {

constexpr int kSweepRows = 64;     // rows of a chain step
constexpr int kSweepRhs = 16;      // right-hand sides of one group (grid.y)
constexpr int kSweepThreads = 256;  // 64 rows x 4 quads of right-hand sides
constexpr int kSweepLd = kSweepRows + 1;

template <class T>
struct SweepSmem {
  T S[kSweepRows][kSweepLd];     // tile of M, processing-local (i, j)
  T Minv[kSweepRows][kSweepLd];  // inverse of the diagonal tile (lower)
  T X[kSweepRows][kSweepRhs];    // X of the block being applied, then the residual
                                 // (16-byte aligned rows: S and Minv are multiples of 16 B)
  T part[4][kSweepRows];         // partial sums of the inversion
  int ticket;
};

template <class T>
constexpr std::size_t trsm_sweep_smem_bytes() { return sizeof(SweepSmem<T>); }

__device__ __forceinline__ int sweep_load_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void sweep_store_release(int* p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// acc[v] -= (Sub) or += row[c] X[c][4 quad + v], summed over the 64 columns
// c: one row of a 64 x 64 tile in shared memory times this thread's quad of
// right-hand sides (X rows 16-byte aligned).
template <class T, bool Sub>
__device__ __forceinline__ void sweep_row_product(const T* row, const T (*X)[kSweepRhs],
                                                  int quad, T* acc) {
#pragma unroll 8
  for (int c = 0; c < kSweepRows; ++c) {
    const T a = row[c];
    T xv[4];
    load4_aligned(&X[c][4 * quad], xv);
#pragma unroll
    for (int v = 0; v < 4; ++v) acc[v] = Sub ? acc[v] - a * xv[v] : acc[v] + a * xv[v];
  }
}

// counters: 2 ints per group (grid.y), zero at launch: [0] tickets, [1] done.
template <class T>
__global__ void __launch_bounds__(kSweepThreads)
    trsm_sweep_kernel(const T* __restrict__ A, index_t lda, bool trans, bool reverse,
                      bool unit, index_t m, index_t nrhs, T alpha, T* B, index_t ldb,
                      int* counters) {
  extern __shared__ __align__(16) unsigned char sweep_smem_raw[];
  SweepSmem<T>& sm = *reinterpret_cast<SweepSmem<T>*>(sweep_smem_raw);
  const int tid = threadIdx.x;
  int* const tickets = counters + 2 * blockIdx.y;
  int* const done = tickets + 1;
  if (tid == 0) sm.ticket = atomicAdd(tickets, 1);
  __syncthreads();
  const index_t p = sm.ticket;
  const index_t v0 = index_t(blockIdx.y) * kSweepRhs;
  // Processing row u -> global row; valid iff u < m.
  auto grow = [&](index_t u) { return reverse ? m - 1 - u : u; };
  // Physical offset of M(gi, gj).
  auto aoff = [&](index_t gi, index_t gj) { return trans ? gj + gi * lda : gi + gj * lda; };

  // This thread's row and quad of right-hand sides for the products.
  const int r = tid & (kSweepRows - 1), quad = tid / kSweepRows;
  const index_t ur = p * kSweepRows + r;
  const bool row_ok = ur < m;
  const index_t gr = grow(row_ok ? ur : 0);
  T acc[4];
#pragma unroll
  for (int v = 0; v < 4; ++v) {
    const index_t col = v0 + 4 * quad + v;
    acc[v] = row_ok && col < nrhs ? alpha * __ldcg(B + gr + col * ldb) : T(0);
  }

  // Tile (p, q) of M into registers: element e of this thread is local
  // (li, lj) with the fast index along A's contiguous dimension.
  T reg[16];
  auto load_tile = [&](index_t q, bool diagonal) {
#pragma unroll
    for (int e = 0; e < 16; ++e) {
      const int idx = tid + e * kSweepThreads;
      const int fast = idx & (kSweepRows - 1), slow = idx / kSweepRows;
      const int li = trans ? slow : fast, lj = trans ? fast : slow;
      const index_t ui = p * kSweepRows + li, uj = q * kSweepRows + lj;
      // In the stored triangle (strictly, for the diagonal tile) and in range.
      const bool ok = ui < m && uj < m && (!diagonal || lj < li || (lj == li && !unit));
      reg[e] = A[ok ? aoff(grow(ui), grow(uj)) : 0];
      if (!ok) reg[e] = (diagonal && lj == li) ? T(1) : T(0);
    }
  };
  auto store_tile = [&]() {
#pragma unroll
    for (int e = 0; e < 16; ++e) {
      const int idx = tid + e * kSweepThreads;
      const int fast = idx & (kSweepRows - 1), slow = idx / kSweepRows;
      const int li = trans ? slow : fast, lj = trans ? fast : slow;
      sm.S[li][lj] = reg[e];
    }
  };

  // ---- inverse of the diagonal tile (lower, processing-local), row by row:
  // Minv(k, j) = (delta_kj - sum_{j <= c < k} L(k, c) Minv(c, j)) / L(k, k).
  // Thread (j, g) sums the terms c = g mod 4; Minv is zero above the diagonal.
  load_tile(p, true);
  store_tile();
  __syncthreads();  // S complete (its diagonal comes from other threads' stores)
  // unsafe: the explicit inverse cannot be used. Either a diagonal entry is
  // below the smallest normal number (its reciprocal may overflow; BLAS
  // divides by it), or an entry of Minv overflowed although every diagonal
  // entry is normal: Minv(k, j) carries 1 / (M(j, j) M(k, k)), so two
  // diagonal entries of 2^-65 give 2^130, where substitution stays finite.
  // X(p) is then found by substitution (the end below); Minv goes unused.
  // The test runs before any wait, off the chain.
  bool unsafe = tid < kSweepRows && !(fabs(sm.S[tid][tid]) >= smallest_normal<T>());
  {
    const int j = tid & (kSweepRows - 1), g = tid / kSweepRows;
#pragma unroll 1
    for (int k = 0; k < kSweepRows; ++k) {
      T s = T(0);
#pragma unroll 4
      for (int c = g; c < k; c += 4) s += sm.S[k][c] * sm.Minv[c][j];  // Minv[c][j] = 0 for j > c
      sm.part[g][j] = s;
      __syncthreads();
      if (g == 0) {
        const T tot = sm.part[0][j] + sm.part[1][j] + sm.part[2][j] + sm.part[3][j];
        const T v = j < k ? -tot / sm.S[k][k] : j == k ? T(1) / sm.S[k][k] : T(0);
        sm.Minv[k][j] = v;
        unsafe = unsafe || !isfinite(v);
      }
      __syncthreads();
    }
  }
  const bool divide = __syncthreads_or(unsafe) != 0;

  // ---- r -= M(p, q) X(q) for q < p.
  int seen = 0;  // thread 0: the last value of done it read
  if (p > 0) load_tile(0, false);
#pragma unroll 1
  for (index_t q = 0; q < p; ++q) {
    __syncthreads();  // S and X free
    store_tile();
    if (q + 1 < p) load_tile(q + 1, false);
    if (tid == 0)
      while (seen <= q) seen = sweep_load_acquire(done);
    __syncthreads();  // X(q) is in B
    {
      const int lj = tid & (kSweepRows - 1), qd = tid / kSweepRows;
      const index_t uj = q * kSweepRows + lj;  // < m: block q is not the last one
      const index_t gj = grow(uj);
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        const index_t col = v0 + 4 * qd + v;
        sm.X[lj][4 * qd + v] = col < nrhs ? __ldcg(B + gj + col * ldb) : T(0);
      }
    }
    __syncthreads();
    sweep_row_product<T, true>(sm.S[r], sm.X, quad, acc);  // acc -= M(p, q)(r, :) X(q)
  }

  // ---- X(p) = Minv r, into B; then publish.
  __syncthreads();
#pragma unroll
  for (int v = 0; v < 4; ++v) sm.X[r][4 * quad + v] = acc[v];
  if (divide && p > 0) {  // S holds tile (p, p - 1) now: the diagonal tile again
    load_tile(p, true);
    store_tile();
  }
  __syncthreads();
  T x[4] = {T(0), T(0), T(0), T(0)};
  if (!divide) {
    sweep_row_product<T, false>(sm.Minv[r], sm.X, quad, x);  // x = Minv(r, :) residual
  } else {
    // Forward substitution on the residual, row by row: row k divides by
    // M(k, k) (scaled where it is below sfmin, sfmin.cuh) and publishes X(k)
    // in sm.X; the later rows subtract it.
#pragma unroll 1
    for (int k = 0; k < kSweepRows; ++k) {
      if (r == k) {
        const T d = sm.S[k][k];
        const T sc = tiny_scale<T>(!(fabs(d) >= smallest_normal<T>()));
        const T rd = T(1) / (d * sc);
#pragma unroll
        for (int v = 0; v < 4; ++v) sm.X[k][4 * quad + v] = acc[v] = (acc[v] * sc) * rd;
      }
      __syncthreads();
      if (r > k)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[v] -= sm.S[r][k] * sm.X[k][4 * quad + v];
    }
#pragma unroll
    for (int v = 0; v < 4; ++v) x[v] = acc[v];
  }
  if (row_ok)
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const index_t col = v0 + 4 * quad + v;
      if (col < nrhs) B[gr + col * ldb] = x[v];
    }
  __threadfence();
  __syncthreads();
  if (tid == 0) sweep_store_release(done, int(p + 1));
}

}  // namespace dla::cuda::detail
