// Does the host's enqueue rate limit spotrf? (session 45)
// Per n: the host time of the spotrf call alone (it returns once every
// launch is queued), and the GPU time (events) of restore + spotrf in two
// forms: as the bench runs it (the GPU idle at the start, so it may wait for
// launches still being queued), and with the stream held by a spin kernel
// until the whole call is queued (the GPU then never waits for the host).
// If the second is clearly shorter, the host bounds the factorization.
//
// Build (repository root, after the CMake build):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icore/include -Igemm/include -Isolvers/include \
//     -Ibuild/core/include experiments/host-enqueue/enqueue_probe.cu \
//     build/solvers/libdla_solvers.a build/gemm/libdla_gemm.a build/core/libdla_core.a \
//     -lcublas -lgomp -o .carry/enqueue_probe
// Run: ./enqueue_probe n [n ...]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../common/probe_util.cuh"
#include "dla/solvers/cholesky_cuda.hpp"

namespace {

__global__ void spin_ns(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::printf("%6s %12s %12s %12s %12s\n", "n", "host_us", "gpu_ms", "blocked_ms", "ratio");
  for (int a = 1; a < argc; ++a) {
    const int n = std::atoi(argv[a]);
    float *A0, *A;
    int* info;
    CK(cudaMalloc(&A0, sizeof(float) * n * n));
    CK(cudaMalloc(&A, sizeof(float) * n * n));
    CK(cudaMalloc(&info, sizeof(int)));
    probe_make_spd<<<1024, 256, 0, s>>>(A0, n, 7u);
    CK(cudaGetLastError());
    auto run = [&] {
      CK(cudaMemcpyAsync(A, A0, sizeof(float) * n * n, cudaMemcpyDeviceToDevice, s));
      const auto t0 = std::chrono::steady_clock::now();
      if (dla::cuda::spotrf(reinterpret_cast<dla::stream_t>(s), dla::Uplo::Lower, n, A, n,
                            info, nullptr) != 0) {
        std::fprintf(stderr, "spotrf refused n = %d\n", n);
        std::exit(1);
      }
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
          .count();
    };
    for (int w = 0; w < 3; ++w) run();
    CK(cudaStreamSynchronize(s));
    std::vector<double> host, gpu, blocked;
    for (int r = 0; r < 9; ++r) {
      // as the bench: the GPU starts at once
      CK(cudaEventRecord(e0, s));
      host.push_back(run());
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      gpu.push_back(ms);
      // the stream held until the call is queued (spin 3x the host time, >= 2 ms)
      const double hold_us = std::max(2000.0, 3.0 * median(host));
      spin_ns<<<1, 1, 0, s>>>((unsigned long long)(hold_us * 1e3));
      CK(cudaGetLastError());
      CK(cudaEventRecord(e0, s));
      const double h = run();
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      blocked.push_back(ms);
      if (h > hold_us) std::fprintf(stderr, "n = %d: the hold ended before the call was queued\n", n);
    }
    int hinfo = -1;
    CK(cudaMemcpy(&hinfo, info, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("%6d %12.1f %12.4f %12.4f %12.4f   (info %d)\n", n, median(host), median(gpu),
                median(blocked), median(blocked) / median(gpu), hinfo);
    CK(cudaFree(A0));
    CK(cudaFree(A));
    CK(cudaFree(info));
  }
  return 0;
}
