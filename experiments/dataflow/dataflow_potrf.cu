// A tile-dataflow Cholesky probe (lower, float, n % 64 == 0): ONE launch,
// one 256-thread block per 64 x 64 tile of the lower triangle, each block
// taking its tile from a ticket counter (atomicAdd), a done flag per tile.
// It is the design cuSOLVER's spotrf runs at n <= 4096 (docs/cholesky-log.md,
// session 31). Session 32 ran seven versions of it (one commit each, `git log
// -- experiments/dataflow`; the numbers are in docs/cholesky-log.md); this is the
// eighth, the second (33afaff, the fastest) with three switches:
//  - tile (i, j) accumulates C = A(i, j) - sum_{k < j} L(i, k) L(j, k)^T in
//    3xTF32 mma.sync (operands double buffered by cp.async, each pair loaded
//    as soon as its two flags are set);
//  - a diagonal tile is factored by one warp in registers (warp_factor64);
//  - a tile below the diagonal waits for L(j, j) and solves X L(j, j)^T = C by
//    substitution (solve_tile).
// Switches (environment): DF_AHEAD=c tickets each diagonal tile c columns
// early (default 0: column-major order); DF_WARM=1 lets a diagonal block first
// factor an identity, so that the factorization's ~70 KB of unrolled code is
// fetched before the chain needs it (session 32: cold it costs ~13-21 k
// cycles more; session 33: neutral once the code has one copy); DF_ROLL=1
// takes the solve's rolled form, DF_ROLL=2 solve_blocked64 (session 33: the
// fastest, 1.46-1.50 ms at 4096).
// A diagonal tile waits only for tiles of its own row, which never wait for
// later tickets, so every wait ends (the argument is at the ticket map).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include experiments/dataflow/dataflow_potrf.cu \
//     -lcusolver -o .carry/dataflow_potrf
// Run: ./dataflow_potrf [n ...]   (default 2048 4096). Prints per n the median
// of 10 runs and cuSOLVER's, max |L - L_cusolver| / max |L|, info, and the
// chain per quarter of the tile columns: tile (j, j - 1) solved after L(j - 1,
// j - 1) was stored, the diagonal tile's last update after that, its
// factorization and store, and the factorization's SM cycles; then the same
// without the accumulations ("products left out", timing only).
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
  float rinv[TS];
};

constexpr int kStamps = 9;  // stamp arrays of T entries (see chain())

struct Options {
  int ahead;  // diagonal tiles ticketed this many columns early
  int warm;   // a diagonal block first factors an identity (instruction fetch)
  int roll;   // the solve: 0 solve_tile, 1 its rolled form, 2 solve_blocked64
  int skip;   // products left out (timing only)
};

template <int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    dataflow_potrf_kernel(float* A, int lda, int T, int* ticket, int* done, int* info,
                          unsigned long long* stamps, Options opt) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(smem_raw);
  __shared__ int s_tile;
  const int t = threadIdx.x;
  if (t == 0) s_tile = atomicAdd(ticket, 1);
  __syncthreads();
  // Ticket -> tile: for c = 0, 1, ...: the diagonal tile (c, c), then the
  // tiles below the diagonal of column c - ahead. A tile below the diagonal
  // waits only for earlier tickets (tiles of earlier columns and its column's
  // diagonal tile, which waits only for tiles of earlier columns ticketed
  // before it). Only diagonal blocks wait for later tickets, at most
  // ahead + 1 of them at a time, far fewer than the resident blocks, so
  // every wait ends (ticket_sim.py checks it on the host).
  int j = -1, i = -1, rest = s_tile;
  for (int c = 0; j < 0; ++c) {
    if (c < T) {
      if (rest == 0) {
        i = j = c;
        break;
      }
      --rest;
    }
    const int cj = c - opt.ahead, cnt = cj >= 0 ? T - cj - 1 : 0;
    if (rest < cnt) {
      j = cj;
      i = cj + 1 + rest;
    } else {
      rest -= cnt;
    }
  }
  const int i0 = TS * i, j0 = TS * j;
  const bool diag = i == j;

  if (diag && opt.warm && t < 32) {
    // Fetch the factorization's code now, on an identity (never fails).
    for (int e = t; e < kTile; e += 32) sm.S[e] = e % kLd == e / kLd ? 1.f : 0.f;
    __syncwarp();
    warp_factor64(sm.S);
  }
  float acc[4][4];
  zero(acc);
  // Left-looking accumulation over k < j, operands double buffered: the pair
  // of k + 1 is loaded during the product of k when its flags are already
  // set (checked without waiting), else after it.
  auto issue = [&](int k) {
    load_tile_async(sm.op[k & 1][0], A, lda, i0, TS * k);
    if (!diag) load_tile_async(sm.op[k & 1][1], A, lda, j0, TS * k);
    cp_async_commit();
  };
  const int* f1 = &done[i * T];
  const int* f2 = &done[j * T];
  if (j > 0) {
    wait_done(f1, f2);
    issue(0);
  }
  for (int k = 0; k < j; ++k) {
    bool early = false;
    if (k + 1 < j) {
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
    if (diag && k == j - 1 && t == 0 && stamps != nullptr) stamps[5 * T + j] = gtimer();
    if (!opt.skip)
      tile_product(acc, sm.op[k & 1][0], sm.op[k & 1][diag ? 0 : 1]);
    if (k + 1 < j && !early) {
      wait_done(f1 + k + 1, f2 + k + 1);
      issue(k + 1);
    }
  }
  __syncthreads();  // the warm-up's S, every warp's last product
  subtract_into(sm.S, A + i0 + size_t(j0) * lda, lda, acc);
  __syncthreads();

  if (diag) {
    const unsigned long long s0 = gtimer(), c0 = clock64();
    if (t < 32) {
      const int f = warp_factor64(sm.S);
      if (f != 0 && t == 0) atomicMin(info, i0 + f);
    }
    const unsigned long long c1 = clock64();
    __syncthreads();
    store_tile(sm.S, A, lda, i0, j0, true);
    if (t == 0 && stamps != nullptr) {
      stamps[T + j] = s0;
      stamps[j] = gtimer();
      stamps[3 * T + j] = c1 - c0;
    }
  } else {
    // X L(j, j)^T = C: the diagonal tile into op[0][0] (column-major).
    // The critical block (i == j + 1) stamps its parts: L(j, j) seen
    // (globaltimer), then SM cycles for the load, the solve, the store and
    // the release.
    float* Lt = sm.op[0][0];
    wait_done(&done[j * T + j], &done[j * T + j]);
    const bool crit = i == j + 1 && t == 0 && stamps != nullptr;
    if (crit) stamps[4 * T + j] = gtimer();
    const unsigned long long c0 = clock64();
    load_tile_async(Lt, A, lda, j0, j0);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    if (t < TS) sm.rinv[t] = 1.f / Lt[t * kLd + t];
    __syncthreads();
    const unsigned long long c1 = clock64();
    if (opt.roll == 2)
      solve_blocked64(sm.S, Lt, sm.rinv);
    else if (opt.roll == 1)
      solve_tile<true>(sm.S, Lt, sm.rinv);
    else
      solve_tile<false>(sm.S, Lt, sm.rinv);
    __syncthreads();
    const unsigned long long c2 = clock64();
    store_tile(sm.S, A, lda, i0, j0, false);
    set_done(&done[i * T + j]);
    if (crit) {
      const unsigned long long c3 = clock64();
      stamps[6 * T + j] = c1 - c0;
      stamps[7 * T + j] = c2 - c1;
      stamps[8 * T + j] = c3 - c2;
      stamps[2 * T + j] = gtimer();
    }
    return;
  }
  set_done(&done[i * T + j]);
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
    const int T = n / TS, tiles = T * (T + 1) / 2, blocks = tiles;
    float *A0, *A, *R, *work;
    int *ticket, *done, *info, *vinfo;
    unsigned long long* stamps;
    CK(cudaMalloc(&A0, sizeof(float) * n * n));
    CK(cudaMalloc(&A, sizeof(float) * n * n));
    CK(cudaMalloc(&R, sizeof(float) * n * n));
    CK(cudaMalloc(&ticket, sizeof(int)));
    CK(cudaMalloc(&done, sizeof(int) * T * T));
    CK(cudaMalloc(&info, sizeof(int)));
    CK(cudaMalloc(&vinfo, sizeof(int)));
    CK(cudaMalloc(&stamps, sizeof(unsigned long long) * kStamps * T));
    probe_make_spd<<<1024, 256, 0, s>>>(A0, n, 7);
    int lw = 0;
    cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, R, n, &lw);
    CK(cudaMalloc(&work, sizeof(float) * std::max(lw, 1)));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto env = [](const char* name, int fallback) {
      const char* v = std::getenv(name);
      return v != nullptr ? std::atoi(v) : fallback;
    };
    Options opt{env("DF_AHEAD", 0), env("DF_WARM", 0), env("DF_ROLL", 0), 0};
    auto run = [&](bool ours, bool stamp) {
      CK(cudaMemcpyAsync(ours ? A : R, A0, sizeof(float) * n * n, cudaMemcpyDeviceToDevice, s));
      CK(cudaMemsetAsync(ticket, 0, sizeof(int), s));
      CK(cudaMemsetAsync(done, 0, sizeof(int) * T * T, s));
      const int big = 0x7fffffff;
      CK(cudaMemcpyAsync(info, &big, sizeof(int), cudaMemcpyHostToDevice, s));
      CK(cudaEventRecord(e0, s));
      if (ours)
        kernel<<<blocks, kThreads, smem, s>>>(A, n, T, ticket, done, info,
                                              stamp ? stamps : nullptr, opt);
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
    // The chain per tile column j: diagonal tile j - 1 done -> tile (j, j - 1)
    // solved and released -> diagonal tile j accumulated -> factored and
    // stored; and the factorization's SM cycles.
    auto chain = [&](const char* what) {
      std::vector<unsigned long long> st(kStamps * T);
      CK(cudaMemcpy(st.data(), stamps, sizeof(unsigned long long) * kStamps * T, cudaMemcpyDeviceToHost));
      std::printf("  %s: diagonal tile %d done %.1f us after tile 0's, %.2f us per tile column\n",
                  what, T - 1, (st[T - 1] - st[0]) * 1e-3,
                  T > 1 ? (st[T - 1] - st[0]) * 1e-3 / (T - 1) : 0.0);
      for (int q = 0; q < 4 && T >= 8; ++q) {  // the chain's parts, mean over quarters of j
        const int jb = std::max(1, q * T / 4), je = (q + 1) * T / 4;
        double solve = 0, acc = 0, chol = 0, cyc = 0;
        for (int j = jb; j < je; ++j) {
          solve += double(st[2 * T + j - 1]) - double(st[j - 1]);
          acc += double(st[T + j]) - double(st[2 * T + j - 1]);
          chol += double(st[j]) - double(st[T + j]);
          cyc += double(st[3 * T + j]);
        }
        const double c = 1e-3 / (je - jb);
        std::printf("    j %d..%d: solve %.2f, last update %.2f, diagonal %.2f us (factorization %.0f cycles)\n",
                    jb, je - 1, solve * c, acc * c, chol * c, cyc / (je - jb));
        // The solve and the last update in parts (j - 1: the solved tile's column).
        double seen = 0, rest = 0, lseen = 0, lprod = 0, cl = 0, cs = 0, cr = 0;
        for (int j = jb; j < je; ++j) {
          seen += double(st[4 * T + j - 1]) - double(st[j - 1]);
          rest += double(st[2 * T + j - 1]) - double(st[4 * T + j - 1]);
          lseen += double(st[5 * T + j]) - double(st[2 * T + j - 1]);
          lprod += double(st[T + j]) - double(st[5 * T + j]);
          cl += double(st[6 * T + j - 1]);
          cs += double(st[7 * T + j - 1]);
          cr += double(st[8 * T + j - 1]);
        }
        const double cc = 1.0 / (je - jb);
        std::printf("      solve: L(j,j) seen %.2f us, then %.2f us = load %.0f + solve %.0f + store and release %.0f cycles;"
                    " last update: pair loaded %.2f us, product and subtract %.2f us\n",
                    seen * c, rest * c, cl * cc, cs * cc, cr * cc, lseen * c, lprod * c);
      }
    };
    std::printf("ahead %d warm %d roll %d: ", opt.ahead, opt.warm, opt.roll);
    std::printf("n=%d tiles=%d smem=%d: dataflow %.3f ms, cusolver %.3f ms (ratio %.2fx), "
                "max |L - L_cusolver| / max |L| = %.2e, info %s\n",
                n, tiles, smem, med[0], med[1], med[1] / med[0], diff / mx,
                hinfo == 0x7fffffff ? "none" : std::to_string(hinfo).c_str());
    chain("full");
    opt.skip = 1;
    std::vector<float> ts;
    for (int it = 0; it < 8; ++it) ts.push_back(run(true, false));
    std::sort(ts.begin(), ts.end());
    run(true, true);
    std::printf("  products left out (timing only): %.3f ms\n", ts[ts.size() / 2]);
    chain("no products");
    for (void* p : {(void*)A0, (void*)A, (void*)R, (void*)work, (void*)ticket, (void*)done,
                    (void*)info, (void*)vinfo, (void*)stamps})
      CK(cudaFree(p));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
  }
  cusolverDnDestroy(h);
  CK(cudaStreamDestroy(s));
  return 0;
}
