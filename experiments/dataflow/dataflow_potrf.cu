// A tile-dataflow Cholesky probe (lower, float, n % 64 == 0), the design
// cuSOLVER's spotrf runs at n <= 4096 (docs/cholesky.md, session 31): ONE
// launch, one 256-thread block per 64 x 64 tile of the lower triangle, tiles
// taken in column-major order, each tile left-looking:
//   C = A(i, j) - sum_{k < j} L(i, k) L(j, k)^T   (waits for tiles (i, k), (j, k))
//   i == j: C = chol(C)                            (in shared memory)
//   i >  j: C = C L(j, j)^-T                       (waits for tile (j, j))
// and a done flag per tile. Blocks take their tile from a ticket counter
// (atomicAdd), so a tile is only ever waited for after a running block has
// taken it: every wait ends even if the hardware dispatched blocks out of
// order.
//
// What it is for: the first measurement of session 31's sketch. Its
// arithmetic is plain (CUDA-core FMAs, shared-memory operands, a diagonal
// factorization with two barriers per column), so its absolute time says
// little; what it shows is the critical chain per 64 columns when the
// accumulation runs beside it in the same grid, without streams or
// partitions: the stamps give, per tile column, when the diagonal tile was
// done.
//
// PREPARED IN SESSION 31, NOT YET RUN: the device time of that session was
// spent; it compiles here (nvcc 13.0, sm_90), nothing more is known.
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 experiments/dataflow/dataflow_potrf.cu -lcusolver \
//     -o .carry/dataflow_potrf
// Run: ./dataflow_potrf [n ...]   (default 2048 4096; n a multiple of 64)
// Prints per n: the median of 10 runs and cuSOLVER's, the largest difference
// between the two factors relative to max |L|, info, and the chain: when each
// diagonal tile was done (us from the kernel's first stamp), per 8 tile
// columns.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/probe_util.cuh"
#include "dla/core/cuda_cp_async.cuh"
#include "dla/core/cuda_tf32.cuh"

namespace {

using dla::cuda::detail::cp_async16n;
using dla::cuda::detail::cp_async_commit;
using dla::cuda::detail::cp_async_wait;
using dla::cuda::detail::mma_tf32x3_n4;
using dla::cuda::detail::split_tf32;

constexpr int TS = 64;        // tile order
constexpr int kThreads = 256;
constexpr int kLd = TS + 8;   // shared row stride (floats): fragment loads on bank 8 t + g
constexpr int kTile = TS * kLd;

// Shared memory of a tile block: operand pairs (double buffered) and the
// tile being finished, all column-major with stride kLd.
struct Smem {
  float op[2][2][kTile];  // [buffer][0: row block i, 1: row block j][kk * kLd + r] = L(r0 + r, k0 + kk)
  float S[kTile];         // S[c * kLd + r] = C(r, c)
  float S2[kTile];        // the head's second tile
};
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ int load_acquire(const int* flag) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

__device__ __forceinline__ void spin(const int* flag) {
  while (load_acquire(flag) == 0) __nanosleep(32);
}

// Thread 0 waits for both flags (acquire), then the block passes a barrier.
__device__ void wait_done(const int* f1, const int* f2) {
  if (threadIdx.x == 0) {
    spin(f1);
    spin(f2);
  }
  __syncthreads();
}

// Every thread's stores are done (barrier), then thread 0 releases the
// flags (f2 may be null).
__device__ void set_done(int* f1, int* f2 = nullptr) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(f1), "r"(1) : "memory");
    if (f2 != nullptr) asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(f2), "r"(1) : "memory");
  }
}

// The 64 x 64 tile at (r0, c0) of column-major A (leading dimension lda)
// into dst[kk * kLd + r] by cp.async.cg (L2: another SM wrote it during this
// kernel), issued by `nthr` threads from thread `first`; no commit.
__device__ void load_tile_async(float* dst, const float* A, int lda, int r0, int c0,
                                int first = 0, int nthr = kThreads) {
  const int me = threadIdx.x - first;
  for (int v = me; v < TS * TS / 4; v += nthr) {
    const int kk = v / (TS / 4), r = 4 * (v % (TS / 4));
    cp_async16n(dst + kk * kLd + r, A + (r0 + r) + size_t(c0 + kk) * lda, 16);
  }
}

// acc += Li Lj^T for rows rm .. rm + 15 and columns cn .. cn + 8 NP - 1 of
// one 64-deep operand pair (3xTF32 mma.sync m16n8k8): acc[nj][e] holds
// (rm + g + 8 (e >> 1), cn + 8 nj + 2 t + (e & 1)), lane = 4 g + t.
template <int NP>
__device__ __forceinline__ void tile_product(float (&acc)[NP][4], const float* Li, const float* Lj,
                                             int rm, int cn) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll 2
  for (int kk = 0; kk < TS; kk += 8) {
    unsigned ah[4], al[4], bh[NP][2], bl[NP][2];
#pragma unroll
    for (int r = 0; r < 4; ++r)
      split_tf32(Li[(kk + t + 4 * (r >> 1)) * kLd + rm + g + 8 * (r & 1)], ah[r], al[r]);
#pragma unroll
    for (int nj = 0; nj < NP; ++nj)
#pragma unroll
      for (int r = 0; r < 2; ++r)
        split_tf32(Lj[(kk + t + 4 * r) * kLd + cn + 8 * nj + g], bh[nj][r], bl[nj][r]);
#pragma unroll
    for (int n4 = 0; n4 < NP; n4 += 4) mma_tf32x3_n4(&acc[n4], ah, al, &bh[n4], &bl[n4]);
  }
}

template <int NP>
__device__ __forceinline__ void zero(float (&acc)[NP][4]) {
#pragma unroll
  for (int a = 0; a < NP; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) acc[a][b] = 0.f;
}

// The 8-warp layout of a 64 x 64 tile: warp w owns rows 16 (w % 4) .. + 15
// and columns 32 (w / 4) .. + 31.
__device__ __forceinline__ int warp_rm() { return 16 * ((threadIdx.x / 32) % 4); }
__device__ __forceinline__ int warp_cn() { return 32 * (threadIdx.x / 128); }

// dst(r, c) = (src ? src(r, c) : 0) + sign * acc for the fragment's elements
// (dst, src: column-major tiles with stride ld; may alias).
template <int NP>
__device__ __forceinline__ void fragment_out(float* dst, int ld, const float* src, int lds,
                                             float sign, const float (&acc)[NP][4], int rm,
                                             int cn) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int nj = 0; nj < NP; ++nj)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int r = rm + g + 8 * (e >> 1), c = cn + 8 * nj + 2 * t + (e & 1);
      const float base = src != nullptr ? src[size_t(c) * lds + r] : 0.f;
      dst[size_t(c) * ld + r] = base + sign * acc[nj][e];
    }
}

// Right-looking Cholesky of S's lower triangle by one warp: lane l holds
// rows l (columns < 32) and l + 32 in registers; column q of L goes to S,
// and the lanes read it back (broadcast) for the rank-1 update. Returns the
// failing column + 1, or 0.
__device__ int factor_tile_warp(float* S) {
  const int l = threadIdx.x % 32;
  float x0[32], x1[64];
#pragma unroll
  for (int c = 0; c < 32; ++c) x0[c] = S[c * kLd + l];
#pragma unroll
  for (int c = 0; c < 64; ++c) x1[c] = S[c * kLd + l + 32];
#pragma unroll
  for (int q = 0; q < 64; ++q) {
    const float piv = __shfl_sync(0xffffffffu, q < 32 ? x0[q] : x1[q], q & 31);
    if (!(piv > 0.f)) return q + 1;  // uniform
    const float inv = rsqrtf(piv), d = piv * inv;
    if (q < 32) {
      x0[q] = l > q ? x0[q] * inv : (l == q ? d : x0[q]);
      S[q * kLd + l] = x0[q];
    }
    x1[q] = l + 32 > q ? x1[q] * inv : (l + 32 == q ? d : x1[q]);
    S[q * kLd + l + 32] = x1[q];
    __syncwarp();
#pragma unroll
    for (int c4 = (q + 1) / 4; c4 < 16; ++c4) {
      const float4 v = *reinterpret_cast<const float4*>(&S[q * kLd + 4 * c4]);
      const float vv[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int c = 4 * c4 + e;
        if (c > q) {
          if (c < 32) x0[c] -= x0[q] * vv[e];
          x1[c] -= x1[q] * vv[e];
        }
      }
    }
  }
  return 0;
}

// The tile in S (column-major, stride kLd) back to A (all of it, or its
// lower triangle).
__device__ void store_tile(const float* S, float* A, int lda, int r0, int c0, bool lower) {
  for (int e = threadIdx.x; e < TS * TS; e += kThreads) {
    const int r = e % TS, p = e / TS;
    if (!lower || r >= p) A[(r0 + r) + size_t(c0 + p) * lda] = S[p * kLd + r];
  }
}

// W = L^-1 for L lower in D (column-major, stride kLd; its upper triangle
// is not read), into W (column-major, zeros above the diagonal), by the
// whole block, blocked by doubling: warp b inverts the 8 x 8 diagonal block b
// (lane c < 8: column c, forward substitution), then for s = 8, 16, 32 each
// pair of inverted blocks [A 0; B C] of order s gets its lower-left block
// -C^-1 B A^-1 = -W_C (B W_A) in two passes through Tb (T = B W_A first).
// Six barriers, rolled loops (the code stays small).
__device__ void invert_tile(float* W, const float* D, float* Tb) {
  const int t = threadIdx.x, w = t / 32, lane = t % 32;
  if (lane < 8) {
    const int b = 8 * w, c = lane;
    float x[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      float acc = r == c ? 1.f : 0.f;
#pragma unroll
      for (int p = 0; p < r; ++p) acc -= D[(b + p) * kLd + b + r] * x[p];
      x[r] = acc / D[(b + r) * kLd + b + r];
    }
#pragma unroll
    for (int r = 0; r < 8; ++r) W[(b + c) * kLd + b + r] = x[r];
  }
  __syncthreads();
#pragma unroll 1
  for (int s = 8; s < TS; s *= 2) {
    const int ss = s * s;
    // T(r, c) = sum_{q >= c} B(r, q) W_A(q, c) for every pair (32 s elements).
    for (int e = t; e < 32 * s; e += kThreads) {
      const int base = 2 * s * (e / ss), r = e % s, c = (e % ss) / s;
      float acc = 0.f;
      for (int q = c; q < s; ++q) acc += D[(base + q) * kLd + base + s + r] * W[(base + c) * kLd + base + q];
      Tb[e] = acc;
    }
    __syncthreads();
    // W(base + s + r, base + c) = -sum_{q <= r} W_C(r, q) T(q, c); the block
    // above it (upper triangle) is zero.
    for (int e = t; e < 32 * s; e += kThreads) {
      const int base = 2 * s * (e / ss), r = e % s, c = (e % ss) / s;
      const float* Te = Tb + (e / ss) * ss + c * s;
      float acc = 0.f;
      for (int q = 0; q <= r; ++q) acc += W[(base + s + q) * kLd + base + s + r] * Te[q];
      W[(base + c) * kLd + base + s + r] = -acc;
      W[(base + s + r) * kLd + base + c] = 0.f;
    }
    __syncthreads();
  }
}

template <int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    dataflow_potrf_kernel(float* A, int lda, int T, int* ticket, int* done, int* info,
                          float* Wg, unsigned long long* stamps, int skip_math, int ahead,
                          int seq, int twice) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(smem_raw);
  __shared__ int s_tile;
  const int t = threadIdx.x, w = t / 32;
  if (t == 0) s_tile = atomicAdd(ticket, 1);
  __syncthreads();
  // Ticket -> tile. Heads run `ahead` columns early (their accumulation is
  // twice a tile block's): tickets go head c, then the tile blocks of column
  // c - ahead, for c = 0, 1, ... A head waits for tickets after its own only
  // in column j - 1 (tile (j + 1, j - 1)), fewer than the resident blocks, and
  // every later ticket's block waits only for earlier ones, so all waits end.
  int j = -1, i = -1, rest = s_tile;
  for (int c = 0; j < 0; ++c) {
    if (c < T) {
      if (rest == 0) {
        i = j = c;
        break;
      }
      --rest;
    }
    const int cj = c - ahead, cnt = cj >= 0 && cj + 2 < T ? T - cj - 2 : 0;
    if (rest < cnt) {
      j = cj;
      i = cj + 2 + rest;
    } else {
      rest -= cnt;
    }
  }
  const bool head = i == j;
  const bool two = head && j + 1 < T;  // the head also owns tile (j + 1, j)
  const int i0 = TS * i, j0 = TS * j;
  // The head leaves k = j - 1 to its tail (it is on the chain): the
  // accumulation runs over k < kend.
  const int kend = head ? max(j - 1, 0) : j;

  float acc[4][4], acc2[4][4];
  zero(acc);
  zero(acc2);
  // Operands per k: op[.][0] = L(i, k), op[.][1] = L(j, k) (head: L(j + 1, k)),
  // double buffered: the pair of k + 1 is loaded during the product of k when
  // its flags are already set (checked without waiting), else after it.
  const int second = head ? j + 1 : j;
  auto issue = [&](int k) {
    load_tile_async(sm.op[k & 1][0], A, lda, i0, TS * k);
    if (!head || two) load_tile_async(sm.op[k & 1][1], A, lda, TS * second, TS * k);
    cp_async_commit();
  };
  const int* f1 = &done[i * T];
  const int* f2 = &done[(!head || two ? second : i) * T];
  if (kend > 0) {
    wait_done(f1, f2);
    issue(0);
  }
  for (int k = 0; k < kend; ++k) {
    bool early = false;
    if (k + 1 < kend) {
      int ready = 0;
      if (t == 0) ready = load_acquire(f1 + k + 1) != 0 && load_acquire(f2 + k + 1) != 0;
      early = __syncthreads_or(ready) != 0;
      if (early) issue(k + 1);
    }
    if (early)
      cp_async_wait<1>();
    else
      cp_async_wait<0>();
    __syncthreads();
    if (!skip_math) {
      const float* Li = sm.op[k & 1][0];
      const float* Lj = sm.op[k & 1][1];
      if (head) {
        tile_product(acc, Li, Li, warp_rm(), warp_cn());
        if (two) tile_product(acc2, Lj, Li, warp_rm(), warp_cn());
      } else {
        tile_product(acc, Li, Lj, warp_rm(), warp_cn());
      }
    }
    if (k + 1 < kend && !early) {
      wait_done(f1 + k + 1, f2 + k + 1);
      issue(k + 1);
    }
  }
  __syncthreads();  // every warp's last product is done; the operand buffers are free
  fragment_out(sm.S, kLd, A + i0 + size_t(j0) * lda, lda, -1.f, acc, warp_rm(), warp_cn());
  if (two)
    fragment_out(sm.S2, kLd, A + i0 + TS + size_t(j0) * lda, lda, -1.f, acc2, warp_rm(), warp_cn());

  if (!head) {
    // X = C W^T, W = L(j, j)^-1 from the head of column j (workspace Wg).
    float* Wt = sm.op[1][0];
    wait_done(&done[j * T + j], &done[j * T + j]);
    for (int e = t; e < TS * TS / 4; e += kThreads)
      cp_async16n(Wt + (e / 16) * kLd + 4 * (e % 16), Wg + size_t(j) * TS * TS + 4 * e, 16);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    zero(acc);
    tile_product(acc, sm.S, Wt, warp_rm(), warp_cn());
    __syncthreads();
    fragment_out(sm.S, kLd, nullptr, 0, 1.f, acc, warp_rm(), warp_cn());
    __syncthreads();
    store_tile(sm.S, A, lda, i0, j0, false);
    set_done(&done[i * T + j]);
    return;
  }

  // The head's tail, on the chain. k = j - 1 for the diagonal tile needs
  // L(j, j - 1) (the previous head's); for the tile below it needs
  // L(j + 1, j - 1) (a tile block's), applied beside the factorization.
  unsigned long long st[5], cy[5];  // %globaltimer (ns) and clock64 (SM cycles)
  if (j > 0) {
    wait_done(&done[j * T + j - 1], &done[j * T + j - 1]);
    load_tile_async(sm.op[0][0], A, lda, j0, j0 - TS);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    st[0] = gtimer();
    cy[0] = clock64();
    zero(acc);
    tile_product(acc, sm.op[0][0], sm.op[0][0], warp_rm(), warp_cn());
    fragment_out(sm.S, kLd, sm.S, kLd, -1.f, acc, warp_rm(), warp_cn());
    __syncthreads();
  } else {
    __syncthreads();
    st[0] = gtimer();
    cy[0] = clock64();
  }
  st[1] = gtimer();
  cy[1] = clock64();
  const bool beside = two && j > 0 && !seq;  // the tile below updated beside the factorization
  unsigned long long cy_mid = 0;
  if (w == 0) {
    // Experiment (DF_TWICE=1): factor a copy first, with the same code (one
    // inlined copy, run twice), so that the timed factorization finds its
    // instructions already fetched.
    float* scratch = sm.op[1][0];
    if (twice) {
      for (int e = t; e < kTile; e += 32) scratch[e] = sm.S[e];
      __syncwarp();
    }
    int f = 0;
#pragma unroll 1
    for (int pass = twice ? 0 : 1; pass < 2; ++pass) {
      f = factor_tile_warp(pass == 0 ? scratch : sm.S);
      __syncwarp();
      if (pass == 0) cy_mid = clock64();
    }
    if (f != 0 && t == 0) atomicMin(info, i0 + f);
  } else if ((w <= 3 || w == 5) && beside) {
    // Warps 1, 2, 3 and 5 (not warp 4: it shares warp 0's scheduler).
    const int part = w == 5 ? 3 : w - 1, pt = 32 * part + t % 32;
    if (pt == 0) spin(&done[(j + 1) * T + j - 1]);
    asm volatile("bar.sync 1, 128;" ::: "memory");
    load_tile_async(sm.op[0][1], A, lda, j0 + TS, j0 - TS, t - pt, 128);
    cp_async_commit();
    cp_async_wait<0>();
    asm volatile("bar.sync 1, 128;" ::: "memory");
    float acc8[8][4];
    zero(acc8);
    tile_product(acc8, sm.op[0][1], sm.op[0][0], 16 * part, 0);
    fragment_out(sm.S2, kLd, sm.S2, kLd, -1.f, acc8, 16 * part, 0);
  }
  __syncthreads();
  st[2] = gtimer();
  cy[2] = clock64();
  float* W = sm.op[1][0];
  invert_tile(W, sm.S, sm.op[1][1]);
  if (two && j > 0 && seq) {
    // The tile below's last update after the factorization, all warps.
    wait_done(&done[(j + 1) * T + j - 1], &done[(j + 1) * T + j - 1]);
    load_tile_async(sm.op[0][1], A, lda, j0 + TS, j0 - TS);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    zero(acc);
    tile_product(acc, sm.op[0][1], sm.op[0][0], warp_rm(), warp_cn());
    fragment_out(sm.S2, kLd, sm.S2, kLd, -1.f, acc, warp_rm(), warp_cn());
    __syncthreads();
  }
  st[3] = gtimer();
  cy[3] = clock64();
  // The tile below as X = C W^T, then L(j, j), W and X out and released
  // together.
  if (two) {
    zero(acc);
    tile_product(acc, sm.S2, W, warp_rm(), warp_cn());
    __syncthreads();
    fragment_out(sm.S2, kLd, nullptr, 0, 1.f, acc, warp_rm(), warp_cn());
  }
  for (int e = t; e < TS * TS; e += kThreads) Wg[size_t(j) * TS * TS + e] = W[(e / TS) * kLd + e % TS];
  store_tile(sm.S, A, lda, i0, j0, true);
  __syncthreads();
  if (two) store_tile(sm.S2, A, lda, i0 + TS, j0, false);
  set_done(&done[j * T + j], two ? &done[(j + 1) * T + j] : nullptr);
  st[4] = gtimer();
  cy[4] = clock64();
  if (t == 0 && stamps != nullptr)
    for (int p = 0; p < 5; ++p) {
      stamps[5 * j + p] = st[p];
      stamps[5 * (T + j) + p] = cy[p];
      stamps[10 * T + j] = cy_mid;
    }
}

// The factorization's instruction-fetch probe: one warp factors the same
// SPD tile `reps` times in a row (the tile reloaded each time), stamping
// each; if the first pass is much slower than the later ones, the straight-
// line code's fetch, not its arithmetic, sets the cost.
__global__ void factor_fetch_probe(const float* A, int lda, int reps, unsigned long long* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* S = reinterpret_cast<float*>(smem_raw);
  for (int rep = 0; rep < reps; ++rep) {
    for (int e = threadIdx.x; e < TS * TS; e += 32) S[(e / TS) * kLd + e % TS] = A[(e % TS) + size_t(e / TS) * lda];
    __syncwarp();
    const unsigned long long t0 = gtimer(), c0 = clock64();
    const int f = factor_tile_warp(S);
    __syncwarp();
    const unsigned long long t1 = gtimer(), c1 = clock64();
    if (threadIdx.x == 0) {
      out[2 * rep] = t1 - t0 + (f != 0 ? 1000000000ull : 0ull);
      out[2 * rep + 1] = c1 - c0;
    }
  }
}

// Load beside the fetch probe (DF_FACTOR_PROBE=2): every other SM runs one
// block that, until *stop is set, either streams loads through L2 (kind 1),
// polls one word with ld.acquire + __nanosleep as the dataflow kernel's
// waiting blocks do (kind 2), or spins on FMAs with no memory traffic (kind 3).
__global__ void hog_kernel(const float* buf, size_t len, const int* stop, int kind, float* sink) {
  float acc = 0.f;
  size_t e = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  for (int it = 0;; ++it) {
    if ((it & 63) == 0 && load_acquire(stop) != 0) break;
    if (kind == 1) {
      const float4 v = __ldcg(reinterpret_cast<const float4*>(buf + e));
      acc += v.x + v.y + v.z + v.w;
      e = (e + size_t(gridDim.x) * blockDim.x * 4) % len;
    } else if (kind == 2) {
      if (threadIdx.x == 0) acc += float(load_acquire(stop + 1));
      __nanosleep(32);
    } else {
#pragma unroll 16
      for (int q = 0; q < 64; ++q) acc = fmaf(acc, 0.999f, 1.f);
    }
  }
  if (acc == 12345.f) *sink = acc;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int a = 1; a < argc; ++a) sizes.push_back(std::atoi(argv[a]));
  if (sizes.empty()) sizes = {2048, 4096};
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cusolverDnHandle_t h;
  if (cusolverDnCreate(&h) != CUSOLVER_STATUS_SUCCESS) return 1;
  cusolverDnSetStream(h, s);
  // One block per SM.
  const int smem = int(std::max(sizeof(Smem), size_t(120 * 1024)));
  auto kernel = dataflow_potrf_kernel<1>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  if (std::getenv("DF_FACTOR_PROBE") != nullptr) {
    const int n = 64, reps = 4;
    float* A0;
    unsigned long long* out;
    CK(cudaMalloc(&A0, sizeof(float) * n * n));
    CK(cudaMalloc(&out, sizeof(unsigned long long) * 2 * reps));
    probe_make_spd<<<16, 256, 0, s>>>(A0, n, 7);
    CK(cudaFuncSetAttribute(factor_fetch_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kTile * 4));
    const int mode = std::atoi(std::getenv("DF_FACTOR_PROBE"));
    float* buf;
    int* stop;
    const size_t len = size_t(16) << 20;  // 64 MB of floats: streams through L2
    CK(cudaMalloc(&buf, sizeof(float) * len));
    CK(cudaMemset(buf, 0, sizeof(float) * len));
    CK(cudaMalloc(&stop, 2 * sizeof(int)));
    CK(cudaFuncSetAttribute(hog_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    cudaStream_t s2;
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    for (int kind = 0; kind <= (mode == 2 ? 3 : 0); ++kind) {
      CK(cudaMemset(stop, 0, 2 * sizeof(int)));
      CK(cudaDeviceSynchronize());
      // 200 KB of shared memory per hog block: nothing else fits beside it,
      // so the probe runs on the one SM left.
      if (kind > 0) hog_kernel<<<131, 256, 200 * 1024, s2>>>(buf, len, stop, kind, buf);
      for (int launch = 0; launch < 3; ++launch) {
        factor_fetch_probe<<<1, 32, kTile * 4, s>>>(A0, n, reps, out);
        CK(cudaStreamSynchronize(s));
        unsigned long long h[2 * reps];
        CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
        std::printf("factor_tile_warp, %s, launch %d, passes (us / cycles):",
                    kind == 0 ? "alone" : kind == 1 ? "beside L2 streaming" : kind == 2 ? "beside pollers" : "beside FMA spinners",
                    launch);
        for (int r = 0; r < reps; ++r) std::printf(" %.2f / %llu", h[2 * r] * 1e-3, h[2 * r + 1]);
        std::printf("\n");
      }
      const int one = 1;
      CK(cudaMemcpy(stop, &one, sizeof(int), cudaMemcpyHostToDevice));
      CK(cudaDeviceSynchronize());
    }
    return 0;
  }
  for (int n : sizes) {
    if (n % TS != 0) {
      std::printf("n=%d: not a multiple of %d, skipped\n", n, TS);
      continue;
    }
    const int T = n / TS, tiles = T * (T + 1) / 2, blocks = tiles - (T - 1);
    float *A0, *A, *R, *work;
    int *ticket, *done, *info, *vinfo;
    float* Wg;
    unsigned long long* stamps;
    CK(cudaMalloc(&A0, sizeof(float) * n * n));
    CK(cudaMalloc(&A, sizeof(float) * n * n));
    CK(cudaMalloc(&R, sizeof(float) * n * n));
    CK(cudaMalloc(&ticket, sizeof(int)));
    CK(cudaMalloc(&done, sizeof(int) * T * T));
    CK(cudaMalloc(&info, sizeof(int)));
    CK(cudaMalloc(&vinfo, sizeof(int)));
    CK(cudaMalloc(&Wg, sizeof(float) * TS * TS * T));
    CK(cudaMalloc(&stamps, sizeof(unsigned long long) * 11 * T));
    probe_make_spd<<<1024, 256, 0, s>>>(A0, n, 7);
    int lw = 0;
    cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, R, n, &lw);
    CK(cudaMalloc(&work, sizeof(float) * std::max(lw, 1)));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int skip = 0;
    const int ahead = std::getenv("DF_AHEAD") != nullptr ? std::atoi(std::getenv("DF_AHEAD")) : 4;
    const int seq = std::getenv("DF_SEQ") != nullptr ? std::atoi(std::getenv("DF_SEQ")) : 0;
    const int twice = std::getenv("DF_TWICE") != nullptr ? std::atoi(std::getenv("DF_TWICE")) : 0;
    auto run = [&](bool ours, bool stamp) {
      CK(cudaMemcpyAsync(ours ? A : R, A0, sizeof(float) * n * n, cudaMemcpyDeviceToDevice, s));
      CK(cudaMemsetAsync(ticket, 0, sizeof(int), s));
      CK(cudaMemsetAsync(done, 0, sizeof(int) * T * T, s));
      const int big = 0x7fffffff;
      CK(cudaMemcpyAsync(info, &big, sizeof(int), cudaMemcpyHostToDevice, s));
      CK(cudaEventRecord(e0, s));
      if (ours)
        kernel<<<blocks, kThreads, smem, s>>>(A, n, T, ticket, done, info, Wg,
                                              stamp ? stamps : nullptr, skip, ahead, seq, twice);
      else
        cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, R, n, work, lw, vinfo);
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      return ms;
    };
    double med[2];
    for (int lib = 0; lib < 2; ++lib) {
      std::vector<float> t;
      for (int it = 0; it < 13; ++it) {
        const float ms = run(lib == 0, false);
        if (it >= 3) t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      med[lib] = t[t.size() / 2];
    }
    run(true, true);
    run(false, false);
    std::vector<float> hA(size_t(n) * n), hR(size_t(n) * n);
    CK(cudaMemcpy(hA.data(), A, sizeof(float) * hA.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hR.data(), R, sizeof(float) * hR.size(), cudaMemcpyDeviceToHost));
    int hinfo = 0;
    CK(cudaMemcpy(&hinfo, info, sizeof(int), cudaMemcpyDeviceToHost));
    double diff = 0, mx = 0;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        const size_t e = i + size_t(j) * n;
        diff = std::max(diff, double(std::fabs(hA[e] - hR[e])));
        mx = std::max(mx, double(std::fabs(hR[e])));
      }
    // The head's stamps per tile column j: L(j, j - 1) loaded, the diagonal
    // tile's last update, the factorization (and the last update of the tile
    // below beside it), L(j, j) stored and released, the tile below solved,
    // stored and released.
    auto chain = [&](const char* what) {
      std::vector<unsigned long long> st(11 * T);
      CK(cudaMemcpy(st.data(), stamps, sizeof(unsigned long long) * 11 * T, cudaMemcpyDeviceToHost));
      const double span = (st[5 * (T - 1) + 4] - st[0]) * 1e-3;
      std::printf("  %s: chain %.1f us from column 0's start to the end, %.2f us per tile column\n",
                  what, span, span / T);
      for (int q = 0; q < 4 && T >= 8; ++q) {  // mean over quarters of j
        const int jb = std::max(1, q * T / 4), je = (q + 1) * T / 4;
        double part[5] = {0, 0, 0, 0, 0};
        for (int j = jb; j < je; ++j) {
          const unsigned long long* sj = &st[5 * j];
          part[0] += double(sj[0]) - double(sj[-1]);  // previous column's end -> start
          for (int p = 1; p < 5; ++p) part[p] += double(sj[p]) - double(sj[p - 1]);
        }
        const double c = 1e-3 / (je - jb);
        std::printf("    j %d..%d: hop+load %.2f, diagonal update %.2f, factor %.2f, inverse %.2f, "
                    "solve+stores+release %.2f us\n", jb, je - 1, part[0] * c, part[1] * c, part[2] * c,
                    part[3] * c, part[4] * c);
        double cyc[5] = {0, 0, 0, 0, 0};  // the same parts in SM cycles (clock64), within a column
        for (int j = jb; j < je; ++j)
          for (int p = 1; p < 5; ++p) cyc[p] += double(st[5 * (T + j) + p] - st[5 * (T + j) + p - 1]);
        std::printf("      cycles: diagonal update %.0f, factor %.0f, inverse %.0f, solve+stores+release %.0f;"
                    " clock %.2f GHz\n", cyc[1] / (je - jb), cyc[2] / (je - jb), cyc[3] / (je - jb),
                    cyc[4] / (je - jb), (cyc[1] + cyc[2] + cyc[3] + cyc[4]) /
                    (part[1] + part[2] + part[3] + part[4]));
        if (twice) {
          double first = 0, second = 0;
          for (int j = jb; j < je; ++j) {
            first += double(st[10 * T + j] - st[5 * (T + j) + 1]);
            second += double(st[5 * (T + j) + 2] - st[10 * T + j]);
          }
          std::printf("      DF_TWICE: first factorization (with the copy) %.0f cycles, second %.0f\n",
                      first / (je - jb), second / (je - jb));
        }
      }
    };
    std::printf("n=%d tiles=%d smem=%d: dataflow %.3f ms, cusolver %.3f ms (ratio %.2fx), "
                "max |L - L_cusolver| / max |L| = %.2e, info %s\n",
                n, tiles, smem, med[0], med[1], med[1] / med[0], diff / mx,
                hinfo == 0x7fffffff ? "none" : std::to_string(hinfo).c_str());
    chain("full");
    skip = 1;
    std::vector<float> ts;
    for (int it = 0; it < 8; ++it) ts.push_back(run(true, false));
    std::sort(ts.begin(), ts.end());
    run(true, true);
    std::printf("  products left out (timing only): %.3f ms\n", ts[ts.size() / 2]);
    chain("no products");
    for (void* p : {(void*)A0, (void*)A, (void*)R, (void*)work, (void*)ticket, (void*)done,
                    (void*)Wg, (void*)info, (void*)vinfo, (void*)stamps})
      CK(cudaFree(p));
  }
  return 0;
}
