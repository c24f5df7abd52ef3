// Timing harness for getrf's cluster leaf (session 6): per-column clock
// stamps of thread 0 of CTA 0, split into the phases of the column loop
// (docs/lu.md). Not part of the build; on this machine, after a build of build/:
//   nvcc -O3 -std=c++20 --expt-relaxed-constexpr -arch=sm_90 -Icore/include \
//     -Isolvers/include -Igemm/include -Ibuild/core/include \
//     scripts/lu-leaf-trace.cu build/core/libdla_core.a -o .carry/leaf_trace
// then on the device: .carry/leaf_trace 32   (or 64: the wide leaf)
#define DLA_LEAF_TRACE 1
#include "../solvers/src/cuda/getrf_leaf_cluster.cu"
#include <cstdio>
#include <vector>
#include <random>

int main(int argc, char** argv) {
  const int w = argc > 1 ? atoi(argv[1]) : 32;
  for (int m : {4096, 8192, 16384}) {
    if (w > 32 && m > 8192) continue;
    std::vector<float> h(size_t(m) * w);
    std::mt19937 g(1); std::uniform_real_distribution<float> U(-1, 1);
    for (auto& x : h) x = U(g);
    float* A; int* ipiv; int* info;
    cudaMalloc(&A, h.size() * 4); cudaMalloc(&ipiv, 4 * w); cudaMalloc(&info, 4);
    for (int rep = 0; rep < 3; ++rep) {
      cudaMemcpy(A, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
      cudaMemset(info, 0, 4);
      cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
      cudaEventRecord(e0);
      bool ok = dla::cuda::detail::leaf_cluster<float>(nullptr, m, 0, w, A, m, ipiv, info, 0, 0);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      if (rep < 2) continue;
      long long t[2][64][8];
      cudaMemcpyFromSymbol(t, dla::cuda::detail::g_leaf_trace, sizeof(t));
      printf("m=%d ok=%d %.1f us (event)  err=%s\n", m, ok, ms * 1000, cudaGetErrorString(cudaGetLastError()));
      for (int c = 0; c < 2; ++c) {
        double s[9] = {0};
        const int idx[9][2] = {{0,1},{1,2},{2,3},{3,5},{5,6},{6,7},{7,4},{4,8},{0,8}};
        const char* nm[9] = {"search+bar","to-push","push+wait","argmax+u","ipiv/U/swap","div","update","loop","total"};
        for (int j = 1; j < 31; ++j)
          for (int q = 0; q < 9; ++q) {
            const long long a = t[c][j][idx[q][0]];
            const long long b2 = idx[q][1] == 8 ? t[c][j + 1][0] : t[c][j][idx[q][1]];
            s[q] += double(b2 - a);
          }
        printf("  cta %s:", c ? "last" : "0");
        for (int q = 0; q < 9; ++q) printf(" %s %.0f |", nm[q], s[q] / 30);
        printf("\n");
      }
    }
  }
}
