// Session 30: potrf_diag_leaf_kernel (solvers/src/cuda/potrf_diag_leaf.cuh)
// against the tile kernel it would replace, one block alone on an idle GPU:
//   1. correctness: orders 1 .. 128, both uplo, lda 4096, against a float64
//      Cholesky on the host; the other triangle untouched; failing minors;
//   2. time per launch (events around each launch, median of 200, the block
//      restored before each), order 128 and 64, both kernels, both uplo;
//   3. %globaltimer stamps of the leaf kernel: after the load, per leaf (after
//      its factor by thread 0, after its rows below).
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Isolvers/src/cuda -Icore/include \
//     experiments/diag-leaf/leaf_probe.cu -o leaf_probe
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>

__device__ unsigned long long* g_stamps;
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#define DLA_POTRF_DIAG_STAMP(slot) \
  ((g_stamps != nullptr) ? (void)(g_stamps[(slot)] = gtimer()) : (void)0)

#include "potrf_diag_leaf.cuh"
#include "potrf_diag_tiles.cuh"

#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

using dla::index_t;
namespace d = dla::cuda::detail;

constexpr index_t kLda = 4096;

// Kernel choice: 0 leaf, 1 tiles (order <= 128), 2 tiles (order <= 64).
void launch(int which, bool upper, float* A, int m, int* info) {
  const int base = 0;
  if (which == 0) {
    auto* k = upper ? &d::potrf_diag_leaf_kernel<true> : &d::potrf_diag_leaf_kernel<false>;
    const int smem = int(d::potrf_diag_leaf_smem_bytes());
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    k<<<1, d::DiagLeaf::kThreads, smem>>>(A, kLda, m, info, index_t(0), nullptr, base);
  } else if (which == 1) {
    auto* k = upper ? &d::potrf_diag_tiles_kernel<float, 128, true>
                    : &d::potrf_diag_tiles_kernel<float, 128, false>;
    k<<<1, d::DiagTiles<128>::kThreads>>>(A, kLda, m, info, index_t(0), nullptr, base);
  } else {
    auto* k = upper ? &d::potrf_diag_tiles_kernel<float, 64, true>
                    : &d::potrf_diag_tiles_kernel<float, 64, false>;
    k<<<1, d::DiagTiles<64>::kThreads>>>(A, kLda, m, info, index_t(0), nullptr, base);
  }
  CK(cudaGetLastError());
}

// SPD matrix of order m (float64): random symmetric + m I.
std::vector<double> spd(int m, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(std::size_t(m) * m);
  for (int j = 0; j < m; ++j)
    for (int i = j; i < m; ++i) a[i + j * m] = a[j + i * m] = u(g);
  for (int i = 0; i < m; ++i) a[i + i * m] += m;
  return a;
}

// Lower Cholesky in float64 (in place, lower part); -1 or the failing column.
int chol(std::vector<double>& a, int m) {
  for (int j = 0; j < m; ++j) {
    double d = a[j + j * m];
    for (int k = 0; k < j; ++k) d -= a[j + k * m] * a[j + k * m];
    if (!(d > 0)) return j;
    d = std::sqrt(d);
    a[j + j * m] = d;
    for (int i = j + 1; i < m; ++i) {
      double s = a[i + j * m];
      for (int k = 0; k < j; ++k) s -= a[i + k * m] * a[j + k * m];
      a[i + j * m] = s / d;
    }
  }
  return -1;
}

int main() {
  float *A, *A0;
  int* info;
  unsigned long long* stamps;
  const std::size_t bytes = sizeof(float) * kLda * 128;
  CK(cudaMalloc(&A, bytes));
  CK(cudaMalloc(&A0, bytes));
  CK(cudaMalloc(&info, sizeof(int)));
  CK(cudaMalloc(&stamps, sizeof(unsigned long long) * 32));
  const float sentinel = 12345.5f;
  int failures = 0;

  // 1. correctness
  for (int upper = 0; upper < 2; ++upper)
    for (int m : {1, 2, 3, 15, 16, 17, 31, 32, 33, 47, 64, 65, 100, 127, 128})
      for (int fail_at : {-1, 0, 5, 16, 31, 33, 100, 127}) {
        if (fail_at >= m) continue;
        auto a = spd(m, 1000 + m + 7 * upper);
        if (fail_at >= 0) a[fail_at + fail_at * m] = -1.0;
        std::vector<float> h(std::size_t(kLda) * 128, sentinel);
        for (int j = 0; j < m; ++j)
          for (int i = j; i < m; ++i)
            h[upper ? j + std::size_t(i) * kLda : i + std::size_t(j) * kLda] = float(a[i + j * m]);
        CK(cudaMemcpy(A, h.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemset(info, 0, sizeof(int)));
        launch(0, upper, A, m, info);
        CK(cudaDeviceSynchronize());
        std::vector<float> o(h.size());
        int hinfo = -7;
        CK(cudaMemcpy(o.data(), A, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&hinfo, info, sizeof(int), cudaMemcpyDeviceToHost));
        auto ref = a;
        const int rf = chol(ref, m);
        bool ok = hinfo == rf + 1;
        bool untouched = true;
        double err = 0, nrm = 0;
        for (int j = 0; j < 128; ++j)
          for (int i = 0; i < int(kLda); ++i) {
            const bool stored = i < m && j < m && i >= j;  // in L coordinates
            const std::size_t at = upper ? std::size_t(j) + std::size_t(i) * kLda
                                         : std::size_t(i) + std::size_t(j) * kLda;
            if (upper && i >= 128) continue;  // rows of A beyond the block's columns
            if (!stored) {
              if (at < o.size() && o[at] != sentinel) untouched = false;
              continue;
            }
            if (rf < 0) {
              err = std::max(err, std::abs(double(o[at]) - ref[i + j * m]));
              nrm = std::max(nrm, std::abs(ref[i + j * m]));
            }
          }
        const double rel = rf < 0 ? err / nrm : 0.0;
        if (!ok || !untouched || rel > 2e-6) {
          ++failures;
          std::printf("FAIL m=%d upper=%d fail_at=%d: info %d (want %d) untouched %d rel %.2e\n", m,
                      upper, fail_at, hinfo, rf + 1, int(untouched), rel);
        } else if (fail_at < 0 && (m == 128 || m == 17)) {
          std::printf("ok m=%d upper=%d: max rel error %.2e\n", m, upper, rel);
        }
      }
  std::printf("correctness: %d failures\n", failures);

  // 2. timing
  {
    auto a = spd(128, 5);
    std::vector<float> h(std::size_t(kLda) * 128, 0.f);
    for (int j = 0; j < 128; ++j)
      for (int i = 0; i < 128; ++i) h[i + std::size_t(j) * kLda] = float(a[i + j * 128]);
    CK(cudaMemcpy(A0, h.data(), bytes, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int m : {128, 64})
      for (int upper = 0; upper < 2; ++upper)
        for (int which : {1, 0}) {
          const int w = which == 1 && m <= 64 ? 2 : which;
          std::vector<float> t;
          for (int rep = 0; rep < 210; ++rep) {
            CK(cudaMemcpy(A, A0, bytes, cudaMemcpyDeviceToDevice));
            CK(cudaMemset(info, 0, sizeof(int)));
            CK(cudaEventRecord(e0));
            launch(w, upper, A, m, info);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (rep >= 10) t.push_back(ms * 1000.f);
          }
          std::sort(t.begin(), t.end());
          std::printf("time m=%d upper=%d %s: median %.1f us (min %.1f)\n", m, upper,
                      which == 0 ? "leaf " : "tiles", t[t.size() / 2], t[0]);
        }
    // 3. stamps of the leaf kernel, order 128, lower
    std::vector<std::vector<double>> rows;
    for (int rep = 0; rep < 43; ++rep) {
      CK(cudaMemcpy(A, A0, bytes, cudaMemcpyDeviceToDevice));
      CK(cudaMemset(info, 0, sizeof(int)));
      CK(cudaMemset(stamps, 0, sizeof(unsigned long long) * 32));
      CK(cudaMemcpyToSymbol(g_stamps, &stamps, sizeof(stamps)));
      launch(0, false, A, 128, info);
      CK(cudaDeviceSynchronize());
      unsigned long long zero = 0;
      CK(cudaMemcpyToSymbol(g_stamps, &zero, sizeof(zero)));
      std::vector<unsigned long long> s(32);
      CK(cudaMemcpy(s.data(), stamps, sizeof(unsigned long long) * 32, cudaMemcpyDeviceToHost));
      if (rep < 3) continue;
      std::vector<double> row;
      for (int k : {9, 10, 11, 12, 13, 14, 15, 16, 17, 8, 18, 19, 20, 21, 22, 23, 24, 25})
        row.push_back((double(s[k]) - double(s[0])) * 1e-3);
      rows.push_back(row);
    }
    std::printf("leaf kernel stamps (order 128, lower; median us from its start): ");
    // leafP: barrier 2 of leaf P passed (its rows below solved); AP: thread 0
    // has factored leaf P (phase A done).
    const char* names[] = {"loaded", "leaf0", "leaf1", "leaf2", "leaf3", "leaf4", "leaf5", "leaf6", "leaf7", "end",
                           "A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7"};
    for (int c = 0; c < 18; ++c) {
      std::vector<double> v;
      for (auto& r : rows) v.push_back(r[c]);
      std::sort(v.begin(), v.end());
      std::printf("%s %.2f  ", names[c], v[v.size() / 2]);
    }
    std::printf("\n");
  }
  return failures == 0 ? 0 : 1;
}
