#pragma once
// In-place phase times of the diagonal kernels (session 34): force-included
// into a copy of the library's potrf.cu (nvcc -include, before any library
// header), it defines the probe hook DLA_POTRF_DIAG_STAMP of
// potrf_kernels.cuh, so that every launch of potrf_diag_tiles_kernel and
// potrf_diag_split_kernel inside dla::cuda::spotrf records %globaltimer at
// its marked points, by block column (offset / 128), and the SM it ran on.
// Slots: 9 entered (before griddepcontrol.wait), 0 the wait returned, 8 the
// final release; the tile kernel 1-4 the releases of sub-panels 0-3; the
// split kernel 1 block loaded, 3 L11 factored, 4 L21 solved, 2 sub-panels 0-1
// released, 5 A22 updated, 6 L22 factored. The timeline (timeline.cu) calls
// diag_stamps_enable before its runs and diag_stamps_dump after them.
#include <cuda_runtime.h>

#include <cstdio>

constexpr int kDiagStampSlots = 16, kDiagStampSteps = 128;
__device__ unsigned long long* g_diag_stamps;

__device__ __forceinline__ void diag_stamp(long long offset, int slot) {
  unsigned long long* s = g_diag_stamps;
  const long long step = offset / 128;
  if (s == nullptr || step >= kDiagStampSteps) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  s[kDiagStampSlots * step + slot] = t;
  if (slot == 9) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    s[kDiagStampSlots * step + 15] = sm;
  }
}
#define DLA_POTRF_DIAG_STAMP(slot) diag_stamp((long long)(offset), (slot))

static unsigned long long* g_diag_stamps_host_ptr = nullptr;

extern "C" void diag_stamps_enable() {
  const std::size_t bytes = sizeof(unsigned long long) * kDiagStampSlots * kDiagStampSteps;
  if (g_diag_stamps_host_ptr == nullptr) cudaMalloc(&g_diag_stamps_host_ptr, bytes);
  cudaMemset(g_diag_stamps_host_ptr, 0, bytes);
  cudaMemcpyToSymbol(g_diag_stamps, &g_diag_stamps_host_ptr, sizeof(g_diag_stamps_host_ptr));
  cudaDeviceSynchronize();
}

// One line per block column of the last run: the SM, then microseconds from
// the wait's return (slot 0) to every other slot, and from the previous
// block column's final release to this one's entry and wait return.
extern "C" void diag_stamps_dump(const char* label, int steps) {
  unsigned long long h[kDiagStampSlots * kDiagStampSteps];
  cudaDeviceSynchronize();
  cudaMemcpy(h, g_diag_stamps_host_ptr, sizeof(h), cudaMemcpyDeviceToHost);
  std::printf("-- diag stamps %s: step sm | enter-wait0 | 1 2 3 4 5 6 | end(8) | prev-end->enter prev-end->wait0 (us)\n", label);
  double sum_end = 0;
  for (int k = 0; k < steps && k < kDiagStampSteps; ++k) {
    const unsigned long long* s = h + kDiagStampSlots * k;
    if (s[0] == 0) continue;
    auto rel = [&](int slot) { return s[slot] ? (double(s[slot]) - double(s[0])) * 1e-3 : -1.0; };
    const unsigned long long* p = k > 0 ? h + kDiagStampSlots * (k - 1) : nullptr;
    const double gap_enter = p && p[8] ? (double(s[9]) - double(p[8])) * 1e-3 : -1.0;
    const double gap_wait = p && p[8] ? (double(s[0]) - double(p[8])) * 1e-3 : -1.0;
    std::printf("   %3d %3llu | %6.1f | %5.1f %5.1f %5.1f %5.1f %5.1f %5.1f | %5.1f | %6.1f %6.1f\n", k,
                s[15], -rel(9), rel(1), rel(2), rel(3), rel(4), rel(5), rel(6), rel(8), gap_enter,
                gap_wait);
    sum_end += rel(8);
  }
  std::printf("-- diag stamps %s: sum of wait->end %.1f us\n", label, sum_end);
}
