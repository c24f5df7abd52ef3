#pragma once
// The look-ahead's per-thread resources (streams, events, device words) and
// its diagnostic trace (DLA_POTRF_TRACE). Host code for potrf.cu only (an
// unnamed namespace: one translation unit includes it).
#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <map>
#include <vector>

#include "dla/core/cuda_check.hpp"
#include "dla/core/types.hpp"
#include "potrf_switches.cuh"

namespace dla::cuda {
namespace {
// The look-ahead's streams and events, created once per host thread and
// device and reused (creating them per call costs more than a small
// factorization). Per thread, so concurrent callers never share events.
// `crit` (highest priority) runs the critical path (diagonal blocks, panels,
// next block column), `side` (default priority) the bulk of the update, so
// the critical kernels get SMs as soon as update blocks retire. Where
// potrf_side_sms says so, the bulk update runs instead on a stream confined
// to part of the SMs (sm_partition.cuh), so they need not wait at all.
// `gate_word`: the word through which a group's critical trapezoid tells the
// side stream that it has started (side_gate_kernel, potrf_update.cuh). It
// is never reset: each gated group takes the next `gate_epoch`, so a value
// left by an earlier call can only be smaller, and a later call's trapezoids
// (crit stream order) can only follow the one a gate waits for.
struct LookaheadResources {
  cudaStream_t crit = nullptr, side = nullptr;
  cudaEvent_t start = nullptr, panel_done = nullptr, rest_done = nullptr, crit_done = nullptr,
              half_ready = nullptr, half_done = nullptr;
  int* flag = nullptr;  // progress word of the diagonal kernel for the fused panel (crit only)
  unsigned long long* gate_word = nullptr;  // 0 at creation, then the last started epoch
  unsigned long long gate_epoch = 0;        // host side: the last epoch handed out
  int sm_count = 0;
};

LookaheadResources& lookahead_resources() {
  thread_local std::map<int, LookaheadResources> cache;
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  LookaheadResources& r = cache[dev];
  if (!r.side) {
    int least = 0, greatest = 0;
    DLA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    DLA_CUDA_CHECK(cudaStreamCreateWithPriority(&r.crit, cudaStreamNonBlocking, greatest));
    DLA_CUDA_CHECK(cudaStreamCreateWithFlags(&r.side, cudaStreamNonBlocking));
    DLA_CUDA_CHECK(cudaDeviceGetAttribute(&r.sm_count, cudaDevAttrMultiProcessorCount, dev));
    for (cudaEvent_t* e : {&r.start, &r.panel_done, &r.rest_done, &r.crit_done, &r.half_ready,
                           &r.half_done})
      DLA_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    DLA_CUDA_CHECK(cudaMalloc(&r.flag, sizeof(int)));
    DLA_CUDA_CHECK(cudaMalloc(&r.gate_word, sizeof(unsigned long long)));
    DLA_CUDA_CHECK(cudaMemset(r.gate_word, 0, sizeof(unsigned long long)));
  }
  return r;
}

// DLA_POTRF_TRACE=1: the look-ahead records timing events at the points
// below and prints one line per block column to stderr after the call
// (synchronizing; diagnostic runs only). Times in us from the call's start:
//   crit: diag(b) starts | panel(b) done | the wait for rest(previous group)
//         ends | the next block column's update done
//   side: rest(group) starts | rest done (at a group's last step)
// No event sits between the diagonal kernel and its programmatic panel.
bool trace_enabled() {
  static const bool v = env_opt_in("DLA_POTRF_TRACE");
  return v;
}

struct LookaheadTrace {
  enum Point { kDiag, kPanel, kWaited, kUpdated, kRestStart, kRestEnd, kPoints };
  bool on = trace_enabled();
  cudaEvent_t origin = nullptr;
  std::vector<std::array<cudaEvent_t, kPoints>> steps;

  void start(cudaStream_t s) {
    if (!on) return;
    DLA_CUDA_CHECK(cudaEventCreate(&origin));
    DLA_CUDA_CHECK(cudaEventRecord(origin, s));
  }
  void mark(int step, Point p, cudaStream_t s) {
    if (!on) return;
    if (int(steps.size()) <= step) steps.resize(std::size_t(step) + 1, {});
    cudaEvent_t& e = steps[std::size_t(step)][p];
    DLA_CUDA_CHECK(cudaEventCreate(&e));
    DLA_CUDA_CHECK(cudaEventRecord(e, s));
  }
  void report(index_t n, index_t nb, index_t depth) {
    if (!on) return;
    DLA_CUDA_CHECK(cudaDeviceSynchronize());
    std::fprintf(stderr, "[potrf trace] n=%lld nb=%lld depth=%lld: step diag panel waited updated "
                 "| rest_start rest_end (us)\n", (long long)n, (long long)nb, (long long)depth);
    for (std::size_t b = 0; b < steps.size(); ++b) {
      std::fprintf(stderr, "[potrf trace] %3zu", b);
      for (int p = 0; p < kPoints; ++p) {
        float ms = -1.f;
        if (steps[b][p] != nullptr) DLA_CUDA_CHECK(cudaEventElapsedTime(&ms, origin, steps[b][p]));
        std::fprintf(stderr, p == kRestStart ? " | %9.1f" : " %9.1f", ms < 0 ? -1.0 : ms * 1e3);
      }
      std::fprintf(stderr, "\n");
    }
    for (auto& st : steps)
      for (cudaEvent_t e : st)
        if (e != nullptr) cudaEventDestroy(e);
    cudaEventDestroy(origin);
  }
};

}  // namespace
}  // namespace dla::cuda
