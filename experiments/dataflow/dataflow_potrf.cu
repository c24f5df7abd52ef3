// A tile-dataflow Cholesky probe (lower, float, n % 64 == 0): ONE launch,
// 256-thread blocks over the 64 x 64 tiles of the lower triangle, each block
// taking its tile from a ticket counter (atomicAdd), a done flag per tile.
// It is the design cuSOLVER's spotrf runs at n <= 4096 (docs/cholesky.md,
// session 31); this file is session 32's seventh version of it. Per tile
// column j (tile products in 3xTF32 mma.sync, operands double buffered by
// cp.async):
//  - the head block owns tiles (j, j) and (j + 1, j): it accumulates both
//    over k < j - 1, then (its tail, the critical chain) applies k = j - 1 to
//    the diagonal tile with L(j, j - 1) from the previous head, factors it
//    with one warp (factor_tile_warp), meanwhile applies k = j - 1 to the
//    tile below on warps 1-3 and 5 (DF_SEQ=1: after the factorization, all
//    warps), inverts L(j, j) (invert_tile), solves the tile below as
//    X = C W^T, and releases L(j, j), W = L(j, j)^-1 (workspace) and X;
//  - every other tile (i, j), i >= j + 2, accumulates over k < j, waits for
//    the head's release and solves itself as X = C W^T.
// Heads are ticketed DF_AHEAD (default 4) columns early (a head's
// accumulation is two tiles'). A block waits only for earlier tickets, except
// a head for tile (j + 1, j - 1), fewer tickets ahead than resident blocks,
// so every wait ends (argued at the ticket map).
//
// What was measured (H200, session 32; docs/cholesky.md has the tables):
// 4096 in 2.23 ms (cuSOLVER 1.52). The second version (33afaff: the diagonal
// tile and the tile below it in separate blocks, solves by substitution) ran
// 1.46 and 1.59 ms in two calls (1.04x, 0.95x) and stays the fastest.
// compute-sanitizer: memcheck and synccheck clean; racecheck clean with
// DF_SEQ=1, 33 hazards reported in the default mode (the named barrier of
// warps 1-3 and 5), not resolved. Per tile column the chain costs
// ~33 us here against a ~19 us target: the cold warp factorization 18-24 k
// cycles (13-14.7 k when its code was fetched before, DF_TWICE=1; 10.6 k on
// an idle GPU, fetch_probe.cu), the inverse ~22 k, the solve and stores
// ~10.5 k.
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/dataflow_potrf.cu \
//     -lcusolver -o .carry/dataflow_potrf
// Run: ./dataflow_potrf [n ...]   (default 2048 4096). Prints per n the median
// of 10 runs and cuSOLVER's, max |L - L_cusolver| / max |L|, info, and the
// chain per quarter of the tile columns (the head's tail in us and in SM
// cycles); then the same without the accumulations ("products left out",
// timing only). Switches: DF_AHEAD, DF_SEQ, DF_TWICE (above).
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/probe_util.cuh"
#include "dataflow_tiles.cuh"

namespace {

using namespace dataflow;

// Shared memory of a tile block: operand pairs (double buffered) and the
// tile being finished, all column-major with stride kLd.
struct Smem {
  float op[2][2][kTile];  // [buffer][0: row block i, 1: row block j][kk * kLd + r] = L(r0 + r, k0 + kk)
  float S[kTile];         // S[c * kLd + r] = C(r, c)
  float S2[kTile];        // the head's second tile
};
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
