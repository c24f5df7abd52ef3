// pdl_probe: what one kernel-to-kernel hand-off on a stream costs, the way
// spotrf's critical stream chains its kernels (session 53).
//
// A chain of N kernels on one stream, alternating grids of GA and GB blocks
// (e.g. 66 = a critical update's tiles, 1 = the diagonal kernel). Every block
// spins D cycles (its "work"), then ends. Each kernel must not start its work
// before the previous kernel has ended. Three ways:
//   plain  no PDL attribute: stream order;
//   wait   PDL launch, griddepcontrol.wait before the work (the library's way);
//   flag   PDL launch, no griddepcontrol.wait: thread 0 polls a counter
//          (ld.acquire.gpu) until every block of the previous kernel has
//          added 1 to it (fence + red.release.gpu after its work).
// PDL kernels trigger griddepcontrol.launch_dependents either at their start
// ("early") or after their work ("late", like potrf_update_kernel).
// Time per link = D + the hand-off; the table prints us per link for each way
// and the difference to "plain".
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o pdl_probe pdl_probe.cu
// Run:   ./pdl_probe            (prints one table)
// The chain is queued behind a ~4 ms gate kernel (session 53's first run
// timed the host's launch rate: every mode ~3.4-5 us per link).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "../common/probe_util.cuh"

enum Mode { kPlain = 0, kWait = 1, kFlag = 2 };

__global__ void link_kernel(int mode, int early, long long cycles, unsigned* counter,
                            unsigned target, unsigned* order_error, unsigned expect_before) {
  if (mode != kPlain && early) asm volatile("griddepcontrol.launch_dependents;");
  if (mode == kWait) asm volatile("griddepcontrol.wait;" ::: "memory");
  if (mode == kFlag) {
    if (threadIdx.x == 0) {
      unsigned v;
      do {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
      } while (v < target);
    }
    __syncthreads();
  }
  // Order check (every mode): the previous kernel's blocks have all counted.
  if (threadIdx.x == 0) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
    if (v < expect_before) atomicAdd(order_error, 1u);
  }
  if (threadIdx.x == 0) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
  }
  __syncthreads();
  if (mode != kPlain && !early) asm volatile("griddepcontrol.launch_dependents;");
  if (threadIdx.x == 0) {
    __threadfence();
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(counter), "r"(1u) : "memory");
  }
}

// Holds the stream while the host queues the chain, so that the host's
// launch rate (~2-3 us per cudaLaunchKernelEx) does not time the chain.
__global__ void gate_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// One chain of n links, queued behind a gate kernel; returns ms from the
// gate's end to the chain's end.
static float run_chain(cudaStream_t s, int mode, int early, int ga, int gb, int n, long long cycles,
                       unsigned* counter, unsigned* order_error, cudaEvent_t e0, cudaEvent_t e1) {
  CK(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
  gate_kernel<<<1, 32, 0, s>>>(8000000LL);  // ~4 ms
  CK(cudaGetLastError());
  CK(cudaEventRecord(e0, s));
  unsigned done = 0;  // blocks counted before link i
  for (int i = 0; i < n; ++i) {
    const int g = i % 2 == 0 ? ga : gb;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.gridDim = dim3(g);
    cfg.blockDim = dim3(256);
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = (mode != kPlain && i > 0) ? 1 : 0;
    CK(cudaLaunchKernelEx(&cfg, link_kernel, mode, early, cycles, counter, done, order_error,
                          done));
    done += unsigned(g);
  }
  CK(cudaEventRecord(e1, s));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return ms;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clk_khz = 0;
  CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0));
  std::printf("device %s, %d SMs, clock %d MHz\n", p.name, p.multiProcessorCount, clk_khz / 1000);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned *counter, *order_error;
  CK(cudaMalloc(&counter, sizeof(unsigned)));
  CK(cudaMalloc(&order_error, sizeof(unsigned)));
  CK(cudaMemset(order_error, 0, sizeof(unsigned)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int n = 200;
  const long long cycles = 4000;  // ~2 us of work per link
  struct Shape { int ga, gb; };
  const Shape shapes[] = {{1, 1}, {66, 1}, {264, 1}, {66, 66}};
  const char* names[] = {"plain", "wait early", "wait late", "flag early", "flag late"};
  const int modes[][2] = {{kPlain, 0}, {kWait, 1}, {kWait, 0}, {kFlag, 1}, {kFlag, 0}};
  std::printf("us per link (chain of %d kernels, %lld cycles of work per block; best of 7)\n", n,
              cycles);
  std::printf("%-10s", "grids");
  for (const char* nm : names) std::printf(" %12s", nm);
  std::printf("\n");
  for (const Shape& sh : shapes) {
    std::printf("%4d/%-5d", sh.ga, sh.gb);
    float base = 0;
    for (int m = 0; m < 5; ++m) {
      run_chain(s, modes[m][0], modes[m][1], sh.ga, sh.gb, n, cycles, counter, order_error, e0,
                e1);  // warm-up
      std::vector<float> t;
      for (int r = 0; r < 7; ++r)
        t.push_back(run_chain(s, modes[m][0], modes[m][1], sh.ga, sh.gb, n, cycles, counter,
                              order_error, e0, e1));
      const float best = *std::min_element(t.begin(), t.end()) * 1000.f / n;
      if (m == 0) base = best;
      std::printf(" %6.2f", best);
      if (m == 0) std::printf("      ");
      else std::printf(" %+5.2f", best - base);
    }
    std::printf("\n");
  }
  unsigned errs = 0;
  CK(cudaMemcpy(&errs, order_error, sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::printf("order errors (a kernel's work before its predecessor ended): %u\n", errs);
  return errs == 0 ? 0 : 1;
}
