// Where the fused panel's tail goes (session 28). The first step of spotrf
// n = 4096 (nb = 128): the order-128 diagonal tile kernel and the fused panel
// (62 blocks of 64 rows) launched exactly as potrf.cu launches them, with the
// probe hooks of potrf_kernels.cuh recording %globaltimer:
//   diagonal kernel (lead thread): start, the releases at columns 32 / 64 /
//     96, the final release;
//   panel, thread 0 of each block: start; per chunk s: the first wait
//     returned (sub-panels < s), L11's row block s in shared memory
//     ("rows-loaded"), the left-looking update done, the second wait
//     returned (sub-panel s), the diagonal block loaded, the chunk done.
// Optionally next to HOGS blocks of an FMA loop that take a whole SM each
// (227 KB of shared memory), on a low-priority stream, to leave 132 - HOGS
// SMs as the look-ahead's bulk update does (96 at n = 4096).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Isolvers/src/cuda -Icore/include \
//     experiments/panel-tail/tail_probe.cu build/core/libdla_core.a -o tail_probe
// Run: ./tail_probe [hogs ...]   (default: 0 96). Session 28's numbers are in
// docs/cholesky-log.md ("Session 28").
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>

// Row 0: diagonal kernel (slots 0..8); row 1 + b: panel block b (slots 0..23
// for the 4 chunks of a 128-wide panel; wider panels would overrun a row).
__device__ unsigned long long* g_stamps;

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

#define DLA_POTRF_DIAG_STAMP(slot) \
  ((g_stamps != nullptr) ? (void)(g_stamps[(slot)] = gtimer()) : (void)0)
#define DLA_POTRF_PANEL_STAMP(slot)                                               \
  ((threadIdx.x == 0 && g_stamps != nullptr)                                      \
       ? (void)(g_stamps[32 * (1 + blockIdx.x) + (slot)] = gtimer()) : (void)0)

#include "dla/core/cuda_launch.hpp"
#include "potrf_diag_tiles.cuh"
#include "potrf_panel.cuh"

#include "../common/probe_util.cuh"

using dla::index_t;
namespace d = dla::cuda::detail;

__global__ void hog(unsigned long long duration_ns, float* sink) {
  extern __shared__ float sh[];
  const unsigned long long stop = gtimer() + duration_ns;
  float a = float(threadIdx.x), b = 1.0001f;
  while (gtimer() < stop) {
#pragma unroll 64
    for (int i = 0; i < 256; ++i) a = fmaf(a, b, 0.5f);
  }
  if (a == 12345.f) sink[threadIdx.x] = a + sh[threadIdx.x];
}

int main(int argc, char** argv) {
  std::vector<int> hog_counts;
  for (int i = 1; i < argc; ++i) hog_counts.push_back(std::atoi(argv[i]));
  if (hog_counts.empty()) hog_counts = {0, 96};
  const int n = 4096, nb = 128, r = n - nb;
  const index_t lda = n;
  std::vector<float> h(std::size_t(lda) * nb);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : h) x = u(gen);
  for (int i = 0; i < nb; ++i) h[i + std::size_t(i) * lda] = float(n);
  float *A, *A0, *sink;
  int *flag, *info;
  unsigned long long* stamps;
  constexpr int kRows = 64;
  CK(cudaMalloc(&A, sizeof(float) * lda * nb));
  CK(cudaMalloc(&A0, sizeof(float) * lda * nb));
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMalloc(&flag, sizeof(int)));
  CK(cudaMalloc(&info, sizeof(int)));
  CK(cudaMalloc(&stamps, sizeof(unsigned long long) * 32 * kRows));
  CK(cudaMemcpy(A0, h.data(), sizeof(float) * h.size(), cudaMemcpyHostToDevice));
  CK(cudaMemset(flag, 0, sizeof(int)));
  CK(cudaMemset(info, 0, sizeof(int)));
  CK(cudaMemcpyToSymbol(g_stamps, &stamps, sizeof(stamps)));
  int least, greatest;
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t sp, sh;
  CK(cudaStreamCreateWithPriority(&sp, cudaStreamNonBlocking, greatest));
  CK(cudaStreamCreateWithPriority(&sh, cudaStreamNonBlocking, least));
  const int hog_smem = 227 * 1024;
  CK(cudaFuncSetAttribute(hog, cudaFuncAttributeMaxDynamicSharedMemorySize, hog_smem));
  // The panel order as potrf.cu picks it: DLA_POTRF_PANEL_AHEAD=0 the
  // left-looking order, else the right-looking one (the default since session 30).
  const char* ahead_env = std::getenv("DLA_POTRF_PANEL_AHEAD");
  const bool ahead = !(ahead_env && ahead_env[0] == '0');
  // DLA_POTRF_PANEL_ROLLED=0: the right-looking order unrolled (rolled is the
  // default since session 35).
  const char* rolled_env = std::getenv("DLA_POTRF_PANEL_ROLLED");
  const bool rolled = ahead && !(rolled_env && rolled_env[0] == '0');
  auto* panel = rolled  ? &d::potrf_panel_kernel<float, 128, true, true>
                : ahead ? &d::potrf_panel_kernel<float, 128, true>
                        : &d::potrf_panel_kernel<float, 128>;
  std::printf("panel: %s order%s\n", ahead ? "right-looking" : "left-looking (DLA_POTRF_PANEL_AHEAD=0)",
              rolled ? ", rolled" : ", unrolled (DLA_POTRF_PANEL_ROLLED=0)");
  const std::size_t psmem = d::potrf_panel_smem_bytes<float, 128>();
  CK(cudaFuncSetAttribute(panel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(psmem)));
  auto* diag = &d::potrf_diag_tiles_kernel<float, 128, false>;
  const int pblocks = (r + d::kPanelRows - 1) / d::kPanelRows;

  const int reps = 40;
  int launch = 0;
  for (int hogs : hog_counts) {
    // per rep: times (us) relative to the diagonal kernel's start
    std::vector<std::vector<double>> rows;
    for (int rep = 0; rep < reps + 3; ++rep) {
      CK(cudaMemcpyAsync(A, A0, sizeof(float) * lda * nb, cudaMemcpyDeviceToDevice, sp));
      CK(cudaMemsetAsync(stamps, 0, sizeof(unsigned long long) * 32 * kRows, sp));
      CK(cudaStreamSynchronize(sp));
      if (hogs > 0) hog<<<hogs, 256, hog_smem, sh>>>(400000, sink);
      const int base = (++launch) * d::kPanelFlagStep;
      {
        const dla::detail::KernelLaunch l(sp, dim3(1), dim3(d::DiagTiles<128>::kThreads), 0, true);
        l(diag, A, lda, nb, info, index_t(0), flag, base);
      }
      {
        const dla::detail::KernelLaunch l(sp, dim3(pblocks), dim3(d::kPanelThreads), psmem, true);
        l(panel, static_cast<const float*>(A), A + nb, lda, nb, index_t(r), false,
          static_cast<const int*>(flag), base);
      }
      CK(cudaStreamSynchronize(sp));
      CK(cudaDeviceSynchronize());
      if (rep < 3) continue;  // warm-up
      std::vector<unsigned long long> s(32 * kRows);
      CK(cudaMemcpy(s.data(), stamps, sizeof(unsigned long long) * s.size(), cudaMemcpyDeviceToHost));
      const double t0 = double(s[0]);
      auto rel = [&](unsigned long long t) { return t ? (double(t) - t0) * 1e-3 : -1.0; };
      std::vector<double> row;
      for (int k : {1, 2, 3, 8}) row.push_back(rel(s[k]));  // diag releases, end
      // panel: per slot 0..20, the max over blocks (and the min for slot 0)
      double first_start = 1e30;
      for (int b = 0; b < pblocks; ++b) first_start = std::min(first_start, rel(s[32 * (1 + b)]));
      row.push_back(first_start);
      for (int k = 0; k <= 23; ++k) {
        double mx = -1;
        for (int b = 0; b < pblocks; ++b) mx = std::max(mx, rel(s[32 * (1 + b) + k]));
        row.push_back(mx);
      }
      rows.push_back(row);
    }
    // medians per column
    const int cols = int(rows[0].size());
    std::vector<double> med(cols);
    for (int c = 0; c < cols; ++c) {
      std::vector<double> v;
      for (auto& rw : rows) v.push_back(rw[c]);
      std::sort(v.begin(), v.end());
      med[c] = v[v.size() / 2];
    }
    std::printf("hogs %d (%d reps, median us from the diagonal kernel's start)\n", hogs, reps);
    std::printf("  diag: release32 %.1f release64 %.1f release96 %.1f end %.1f\n", med[0], med[1],
                med[2], med[3]);
    std::printf("  panel: first block start %.1f, last block start %.1f\n", med[4], med[5]);
    for (int ch = 0; ch < 4; ++ch)
      std::printf("  chunk %d (latest block): wait1 %.1f rows-loaded %.1f update %.1f wait2 %.1f "
                  "loaded %.1f done %.1f\n", ch, med[5 + 1 + 5 * ch], ch > 0 ? med[5 + 20 + ch] : -1.0,
                  med[5 + 2 + 5 * ch], med[5 + 3 + 5 * ch], med[5 + 4 + 5 * ch], med[5 + 5 + 5 * ch]);
    std::printf("  tail (last chunk done - diag end): %.1f us\n", med[5 + 20] - med[3]);
  }
  return 0;
}
