#pragma once
// In-place phase times of the diagonal kernels (session 34): force-included
// into a copy of the library's potrf.cu (nvcc -include, before any library
// header), it defines the probe hook DLA_POTRF_DIAG_STAMP of
// potrf_kernels.cuh, so that every launch of potrf_diag_tiles_kernel and
// potrf_diag_split_kernel inside dla::cuda::spotrf records %globaltimer at
// its marked points, by block column (offset / 128), and the SM it ran on.
// Slots: 9 entered (before griddepcontrol.wait), 0 the wait returned, 8 the
// final release; the tile kernel 1-3 the releases of sub-panels 0-2 (3 with
// the final one); the split kernel 1 block loaded, 3 L11 factored, 4 L21
// solved, 2 sub-panels 0-1 released, 5 A22 updated, 6 L22 factored.
// It also defines DLA_POTRF_PANEL_STAMP for the fused panel kernel
// (potrf_panel.cuh), by block column (flag_base / kPanelFlagStep): per slot
// the latest of its blocks' times (atomicMax), so chunk s's slots 2 + 5 s
// (updated), 3 + 5 s (its sub-panel released and seen), 4 + 5 s (copied) and
// 5 + 5 s (solved) say when the panel's last block got there.
// Session 36 added the "panel chunks" table: every chunk's slots and the
// diagonal kernel's releases, per block column.
// The timeline (timeline.cu) calls diag_stamps_enable before its runs and
// diag_stamps_dump after them.
#include <cuda_runtime.h>

#include <cstdio>
#include <utility>

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

// The leaf kernel's probe hook (potrf_diag_leaf.cuh): its phases in the
// diagonal slots the leaf kernel leaves free: 4 the block loaded into
// shared memory (leaf slot 33), 5 leaf 0 factored (leaf slot 1), 6 leaf 0's
// stores and update of leaf 1 done (leaf slot 3); sub-panel 0 is released
// (slot 1) after leaf 1. Session 38: every leaf slot (0..47) also goes to
// g_leaf_stamps, printed as the "leaf phases" table (per leaf k: pass start
// 4k, factored 4k + 1 (warp 0), the barrier after it 4k + 2, the pass's end
// 4k + 3, the update warps' previous-leaf update done 40 + k - 1).
constexpr int kLeafStampSlots = 48;
__device__ unsigned long long* g_leaf_stamps;
__device__ __forceinline__ void leaf_stamp_in_place(long long offset, int slot) {
  const int d = slot == 33 ? 4 : slot == 1 ? 5 : slot == 3 ? 6 : -1;
  if (d >= 0) diag_stamp(offset, d);
  unsigned long long* s = g_leaf_stamps;
  const long long step = offset / 128;
  if (s == nullptr || step >= kDiagStampSteps || slot >= kLeafStampSlots) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  s[kLeafStampSlots * step + slot] = t;
}
#define DLA_POTRF_LEAF_STAMP(slot) leaf_stamp_in_place((long long)(offset), (slot))

constexpr int kPanelStampSlots = 28;  // 24 + s: chunk s's solve arithmetic done (session 37)
constexpr int kPanelStampFlagStep = 1024;  // potrf_kernels.cuh's kPanelFlagStep
__device__ unsigned long long* g_panel_stamps;

__device__ __forceinline__ void panel_stamp(int flag_base, int slot) {
  unsigned long long* s = g_panel_stamps;
  const int step = flag_base / kPanelStampFlagStep;
  // Thread 0, or 256: the copier warp of potrf_panel_copier_kernel (session 53).
  if (threadIdx.x % 256 != 0 || s == nullptr || step >= kDiagStampSteps || slot >= kPanelStampSlots) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  atomicMax(&s[kPanelStampSlots * step + slot], t);
}
#define DLA_POTRF_PANEL_STAMP(slot) panel_stamp(flag_base, (slot))

static unsigned long long* g_diag_stamps_host_ptr = nullptr;
static unsigned long long* g_panel_stamps_host_ptr = nullptr;
static unsigned long long* g_leaf_stamps_host_ptr = nullptr;
constexpr std::size_t kLeafStampBytes = sizeof(unsigned long long) * kLeafStampSlots * kDiagStampSteps;
constexpr std::size_t kDiagStampBytes = sizeof(unsigned long long) * kDiagStampSlots * kDiagStampSteps;
constexpr std::size_t kPanelStampBytes = sizeof(unsigned long long) * kPanelStampSlots * kDiagStampSteps;

// Zeroes the records (the panel's are maxima: call it before every run
// whose panel stamps are read).
extern "C" void diag_stamps_enable() {
  if (g_diag_stamps_host_ptr == nullptr) {
    cudaMalloc(&g_diag_stamps_host_ptr, kDiagStampBytes);
    cudaMalloc(&g_panel_stamps_host_ptr, kPanelStampBytes);
    cudaMalloc(&g_leaf_stamps_host_ptr, kLeafStampBytes);
  }
  cudaMemset(g_leaf_stamps_host_ptr, 0, kLeafStampBytes);
  cudaMemcpyToSymbol(g_leaf_stamps, &g_leaf_stamps_host_ptr, sizeof(g_leaf_stamps_host_ptr));
  cudaMemset(g_diag_stamps_host_ptr, 0, kDiagStampBytes);
  cudaMemset(g_panel_stamps_host_ptr, 0, kPanelStampBytes);
  cudaMemcpyToSymbol(g_diag_stamps, &g_diag_stamps_host_ptr, sizeof(g_diag_stamps_host_ptr));
  cudaMemcpyToSymbol(g_panel_stamps, &g_panel_stamps_host_ptr, sizeof(g_panel_stamps_host_ptr));
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

  // The fused panel of each block column, times from the diagonal kernel's
  // wait return: its last block's start, chunk 2 solved, and chunk 3's
  // sub-panel seen, copied and solved (128-wide block columns: 4 chunks);
  // tail = chunk 3 solved - the diagonal kernel's final release.
  unsigned long long hp[kPanelStampSlots * kDiagStampSteps];
  cudaMemcpy(hp, g_panel_stamps_host_ptr, sizeof(hp), cudaMemcpyDeviceToHost);
  std::printf("-- panel stamps %s: step | last start | chunk 2 solved | chunk 3 seen copied solved | tail (us)\n",
              label);
  double sum_tail = 0;
  for (int k = 0; k < steps && k < kDiagStampSteps; ++k) {
    const unsigned long long* d = h + kDiagStampSlots * k;
    const unsigned long long* q = hp + kPanelStampSlots * k;
    if (d[0] == 0 || q[20] == 0) continue;
    auto rel = [&](int slot) { return q[slot] ? (double(q[slot]) - double(d[0])) * 1e-3 : -1.0; };
    const double tail = (double(q[20]) - double(d[8])) * 1e-3;
    std::printf("   %3d | %6.1f | %6.1f | %6.1f %6.1f %6.1f | %6.1f\n", k, rel(0), rel(15), rel(18),
                rel(19), rel(20), tail);
    sum_tail += tail;
  }
  std::printf("-- panel stamps %s: sum of tails %.1f us\n", label, sum_tail);

  // Every chunk of the panel (session 36): per chunk s, the times of its
  // last block's update start (2 + 5 s), sub-panel seen (3 + 5 s), copied
  // (4 + 5 s), solve arithmetic done (24 + s, session 37: before the stores
  // and the wait for the rows below) and solved (5 + 5 s), from the diagonal
  // kernel's wait return;
  // the diagonal kernel's releases (1-3) and end (8) before them.
  std::printf("-- panel chunks %s: step | diag releases 1 2 3 end | chunk s: update seen copied arith solved (us)\n",
              label);
  for (int k = 0; k < steps && k < kDiagStampSteps; ++k) {
    const unsigned long long* d = h + kDiagStampSlots * k;
    const unsigned long long* q = hp + kPanelStampSlots * k;
    if (d[0] == 0 || q[20] == 0) continue;
    auto rd = [&](int slot) { return d[slot] ? (double(d[slot]) - double(d[0])) * 1e-3 : -1.0; };
    auto rp = [&](int slot) { return q[slot] ? (double(q[slot]) - double(d[0])) * 1e-3 : -1.0; };
    std::printf("   %3d | %5.1f %5.1f %5.1f %5.1f |", k, rd(1), rd(2), rd(3), rd(8));
    for (int c = 0; c < 4; ++c)
      std::printf(" %5.1f %5.1f %5.1f %5.1f %5.1f |", rp(2 + 5 * c), rp(3 + 5 * c), rp(4 + 5 * c),
                  rp(24 + c), rp(5 + 5 * c));
    std::printf("\n");
  }

  // The leaf kernel's phases (session 38), us from its wait's return (leaf
  // slot 32): loaded (33), then per leaf k: start, factored, barrier, end,
  // and the update warps' done (40 + k - 1, for k >= 1); the median over
  // the steps from steps / 2 on (late steps), then every step's row.
  unsigned long long hl[kLeafStampSlots * kDiagStampSteps];
  cudaMemcpy(hl, g_leaf_stamps_host_ptr, sizeof(hl), cudaMemcpyDeviceToHost);
  bool any = false;
  for (int k = 0; k < steps && k < kDiagStampSteps; ++k) any = any || hl[kLeafStampSlots * k + 32];
  if (!any) return;
  auto lrel = [&](int k, int slot) {
    const unsigned long long* q = hl + kLeafStampSlots * k;
    return q[slot] && q[32] ? (double(q[slot]) - double(q[32])) * 1e-3 : -1.0;
  };
  std::printf("-- leaf phases %s: step | loaded | leaf k: start factored barrier end upd(prev) ... | end(34) (us)\n", label);
  for (int k = 0; k < steps && k < kDiagStampSteps; ++k) {
    if (!hl[kLeafStampSlots * k + 32]) continue;
    std::printf("   %3d | %5.1f |", k, lrel(k, 33));
    for (int l = 0; l < 8; ++l)
      std::printf(" %5.1f %5.1f %5.1f %5.1f %5.1f |", lrel(k, 4 * l), lrel(k, 4 * l + 1),
                  lrel(k, 4 * l + 2), lrel(k, 4 * l + 3), l > 0 ? lrel(k, 40 + l - 1) : -1.0);
    std::printf(" %5.1f\n", lrel(k, 34));
  }
  std::printf("-- leaf phases %s, median of steps %d..%d:", label, steps / 2, steps - 2);
  auto med = [&](int slot) {
    double v[kDiagStampSteps];
    int c = 0;
    for (int k = steps / 2; k < steps - 1 && k < kDiagStampSteps; ++k)
      if (lrel(k, slot) >= 0) v[c++] = lrel(k, slot);
    if (c == 0) return -1.0;
    for (int a = 1; a < c; ++a)
      for (int b = a; b > 0 && v[b] < v[b - 1]; --b) std::swap(v[b], v[b - 1]);
    return v[c / 2];
  };
  std::printf(" loaded %.2f |", med(33));
  for (int l = 0; l < 8; ++l)
    std::printf(" %d: %.2f %.2f %.2f %.2f %.2f |", l, med(4 * l), med(4 * l + 1), med(4 * l + 2),
                med(4 * l + 3), l > 0 ? med(40 + l - 1) : -1.0);
  std::printf(" end %.2f\n", med(34));
}
