// Cholesky factorization on the device: blocked right-looking, GPU-resident.
//
//   for each block column j (width jb <= nb):
//     factor the diagonal block      one launch: potrf_diag_tiles_kernel for
//                                     jb <= 128 (float and double; float:
//                                     potrf_diag_leaf_kernel where
//                                     potrf_leaf_diag(n) says so, opt-in
//                                     potrf_diag_split_kernel for
//                                     64 < jb <= 128),
//                                     potrf_diag_kernel up to kDiagMax (256);
//                                     larger blocks
//                                     (DLA_POTRF_NB > 256) recursively: diagonal
//                                     kernels, trsm and gemmt
//     panel solve                    L21 = A21 L11^-T: in the look-ahead by
//                                     potrf_panel_kernel while the diagonal
//                                     kernel runs (fused panel; float lower:
//                                     potrf_panel_copier_kernel, the same
//                                     with a warp that copies each released
//                                     part of L11), else strsm
//     trailing update                A22 -= L21 L21^T, only the stored triangle:
//                                     one triangular GEMM launch (sgemmt/dgemmt);
//                                     in the look-ahead the critical stream's
//                                     part (float, lower) is one launch of
//                                     potrf_update_kernel, built for latency
//                                     (3xTF32 on the tensor cores when the
//                                     updates are; small updates with each
//                                     tile on a cluster of CTAs,
//                                     potrf_update_cluster_kernel)
// The upper case runs the same steps on the transpose (U = L^T).
// No host round trips: the first failing minor is written to the device `info`
// and every later diagonal kernel sees it and does nothing.
// Beside this file: the A/B switches (potrf_switches.cuh), the look-ahead's
// streams, events and trace (potrf_lookahead.cuh), the sizes' rules
// (potrf_blocking.cpp) and one header per kernel family.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "dla/core/cuda_check.hpp"
#include "dla/core/cuda_launch.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "dla/solvers/cholesky_cuda.hpp"
#include "dla/solvers/trsm_cuda.hpp"
#include "copy_triangle.cuh"
#include "internal_blas.cuh"
#include "potrf_diag_leaf.cuh"
#include "potrf_diag_split.cuh"
#include "potrf_diag_tiles.cuh"
#include "potrf_kernels.cuh"
#include "potrf_lookahead.cuh"
#include "potrf_panel.cuh"
#include "potrf_panel_copier.cuh"
#include "potrf_switches.cuh"
#include "potrf_update.cuh"
#include "potrf_update_cluster.cuh"
#include "sm_partition.cuh"

namespace dla::cuda {
namespace {

template <class T>
struct Potrf {
  stream_t s;
  bool upper;
  T* A;
  index_t lda;
  int* info;
  // The look-ahead's updates run on the tensor cores (3xTF32): the critical
  // path's potrf_update_kernel does too where its contract allows.
  bool tensor_cores = false;
  // Float diagonal blocks of order <= 128 by potrf_diag_leaf_kernel instead
  // of the tile kernel (potrf_leaf_diag(n), potrf_blocking.cpp).
  bool leaf_diag = false;
  // The device's SMs (the look-ahead's rule for the critical update's
  // clusters, potrf_crit_cluster).
  index_t sm_count = 0;

  T* at(index_t i, index_t j) const { return A + i + j * lda; }

  // Stored-triangle update of the r x r matrix at (c0, c0) with the panel of
  // kk columns (lower: rows c0.., columns p0..; upper: the transpose), in one
  // triangular GEMM launch (sgemmt: only the tiles that meet the triangle).
  // cols < r: only the first `cols` columns (upper: rows), a trapezoid.
  void syrk(index_t c0, index_t r, index_t p0, index_t kk, index_t cols) const {
    if (r <= 0 || kk <= 0) return;
    if (!upper)
      detail::gemmt<T>(s, Uplo::Lower, Op::N, Op::T, r, cols, kk, T(-1), at(c0, p0), lda,
                       at(c0, p0), lda, T(1), at(c0, c0), lda);
    else
      detail::gemmt<T>(s, Uplo::Upper, Op::T, Op::N, cols, r, kk, T(-1), at(p0, c0), lda,
                       at(p0, c0), lda, T(1), at(c0, c0), lda);
  }

  // syrk(c0, r, p0, kk, cols) on the critical path: potrf_update_kernel
  // (potrf_update.cuh) where its contract holds (float, lower, lda % 4 == 0,
  // 16-byte aligned blocks, kk <= 384) and the update is small, else syrk.
  // With tensor-core updates, its 3xTF32 variant where kk <= 256 and
  // kk % 8 == 0 (every look-ahead update with nb a multiple of 8); and where
  // potrf_crit_cluster says so (updates of at most SMs / 2 tiles), each tile
  // on a cluster of CTAs that split k (potrf_update_cluster.cuh, kk <= 512).
  // started: see potrf_update_kernel; returns whether that kernel ran (and so
  // will store started_value), false where the update went to syrk.
  bool crit_syrk(index_t c0, index_t r, index_t p0, index_t kk, index_t cols,
                 unsigned long long* started = nullptr,
                 unsigned long long started_value = 0) const {
    if constexpr (std::is_same_v<T, float>) {
      using U = detail::CritUpdate;
      const float* P = at(c0, p0);
      float* C = at(c0, c0);
      const auto aligned = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
      const index_t mt = (r + U::kTile - 1) / U::kTile, nt = (cols + U::kTile - 1) / U::kTile;
      const bool fits = !upper && crit_update_enabled() && r > 0 && kk > 0 && cols <= r &&
                        lda % 4 == 0 && aligned(P) && aligned(C) && mt * nt <= U::kMaxTiles;
      // The tile spread over a cluster of CTAs that split k (session 40).
      const index_t tiles = mt * nt - nt * (nt - 1) / 2;  // on or below the diagonal
      const int ks = crit_clusters_refused() ? 0 : potrf_crit_cluster(tiles, sm_count);
      if (fits && ks > 0 && tensor_cores && crit_tc_enabled() &&
          crit_cluster_launch(ks, P, C, r, cols, kk, mt, nt, started, started_value))
        return started != nullptr;
      if (fits && kk <= U::kMaxK) {
        const bool tc = tensor_cores && crit_tc_enabled() && kk <= U::kMaxKTc && kk % 8 == 0;
        auto* kernel = tc ? &detail::potrf_update_kernel<true> : &detail::potrf_update_kernel<false>;
        const std::size_t smem = U::smem_bytes(int(kk), tc);
        DLA_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        // A programmatic dependent of the panel kernel, like the GEMM it replaces.
        const dla::detail::KernelLaunch launch(
            reinterpret_cast<cudaStream_t>(s),
            dim3(unsigned(nt), unsigned(mt)),
            dim3(U::kThreads), smem, true);
        launch(kernel, P, C, lda, int(r), int(cols), int(kk), started, started_value);
        return started != nullptr;
      }
    }
    syrk(c0, r, p0, kk, cols);
    return false;
  }

  // potrf_update_cluster_kernel<ks> (float, lower, tensor cores) on an
  // mt x nt tile grid, where its k contract holds (k % 8 == 0, k <= ks *
  // 128); false where it does not, or (clusters off from then on) if the
  // launch is refused.
  bool crit_cluster_launch(int ks, const float* P, float* C, index_t r, index_t cols, index_t kk,
                           index_t mt, index_t nt, unsigned long long* started,
                           unsigned long long started_value) const {
    using C2 = detail::CritCluster<2>;
    using C4 = detail::CritCluster<4>;
    if (kk % 8 != 0 || kk > (ks == 2 ? C2::kMaxK : C4::kMaxK)) return false;
    auto* kernel = ks == 2 ? &detail::potrf_update_cluster_kernel<2>
                           : &detail::potrf_update_cluster_kernel<4>;
    const std::size_t smem = ks == 2 ? C2::smem_bytes(int(kk)) : C4::smem_bytes(int(kk));
    DLA_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    static_assert(C2::kThreads == C4::kThreads, "one block shape for both sizes");
    dla::detail::KernelLaunch launch(reinterpret_cast<cudaStream_t>(s),
                                     dim3(unsigned(ks * nt), unsigned(mt)),
                                     dim3(C4::kThreads), smem, true);
    launch.cluster(unsigned(ks));
    const cudaError_t e = launch.try_launch(kernel, P, C, lda, int(r), int(cols), int(kk),
                                            started, started_value);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: a configuration the device refused
      crit_clusters_refused() = true;
      return false;
    }
    DLA_CUDA_CHECK_LAUNCH();
    return true;
  }

  // The diagonal block of order k <= kDiagMax at (off, off): one launch.
  // flag: progress word for a fused panel kernel (see diag_and_panel).
  void diag(index_t off, index_t k, int* flag = nullptr, int flag_base = 0) const {
    if constexpr (std::is_same_v<T, float>) {
      if (k > 64 && k <= 128 && diag_rows_enabled() && diag_tiles_enabled() &&
          diag_split_enabled()) {
        // Like the tile kernel below: a programmatic dependent of the kernel
        // before it.
        auto* kernel = upper ? &detail::potrf_diag_split_kernel<true>
                             : &detail::potrf_diag_split_kernel<false>;
        constexpr std::size_t smem = detail::potrf_diag_split_smem_bytes();  // > 48 KB: opt in
        DLA_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        const dla::detail::KernelLaunch launch(reinterpret_cast<cudaStream_t>(s), dim3(1),
                                               dim3(detail::kSplitThreads), smem,
                                               diag_pdl_enabled());
        launch(kernel, at(off, off), lda, int(k), info, off, flag, flag_base);
        return;
      }
    }
    if constexpr (std::is_same_v<T, float>) {
      if (k <= 128 && diag_rows_enabled() && diag_tiles_enabled() && leaf_diag) {
        // Like the tile kernel below: a programmatic dependent of the kernel
        // before it.
        auto* kernel = upper ? &detail::potrf_diag_leaf_kernel<true>
                             : &detail::potrf_diag_leaf_kernel<false>;
        constexpr std::size_t smem = detail::potrf_diag_leaf_smem_bytes();  // > 48 KB: opt in
        DLA_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        const dla::detail::KernelLaunch launch(reinterpret_cast<cudaStream_t>(s), dim3(1),
                                               dim3(detail::kLeafThreads), smem,
                                               diag_pdl_enabled());
        launch(kernel, at(off, off), lda, int(k), info, off, flag, flag_base);
        return;
      }
    }
    if (k <= 128 && diag_rows_enabled() && diag_tiles_enabled()) {
      // A programmatic dependent of the kernel before it (the next block
      // column's update): launched while that kernel ends, it waits for it
      // (griddepcontrol.wait) before reading the block.
      const bool small = k <= 64;
      auto* kernel = small ? (upper ? &detail::potrf_diag_tiles_kernel<T, 64, true>
                                    : &detail::potrf_diag_tiles_kernel<T, 64, false>)
                           : (upper ? &detail::potrf_diag_tiles_kernel<T, 128, true>
                                    : &detail::potrf_diag_tiles_kernel<T, 128, false>);
      const unsigned threads = small ? detail::DiagTiles<64>::kThreads
                                     : detail::DiagTiles<128>::kThreads;
      const dla::detail::KernelLaunch launch(reinterpret_cast<cudaStream_t>(s), dim3(1),
                                             dim3(threads), 0, diag_pdl_enabled());
      launch(kernel, at(off, off), lda, int(k), info, off, flag, flag_base);
      return;
    }
    if (k <= detail::diag_rows_max<T>() && diag_rows_enabled()) {
      const unsigned threads = unsigned((k + 31) / 32 * 32);
      if (k <= 64) {
        auto* kernel = upper ? &detail::potrf_diag_rows_kernel<T, 64, true>
                             : &detail::potrf_diag_rows_kernel<T, 64, false>;
        kernel<<<1, threads, 0, s>>>(at(off, off), lda, int(k), info, off, flag, flag_base);
      } else if constexpr (detail::diag_rows_max<T>() > 64) {
        auto* kernel = upper ? &detail::potrf_diag_rows_kernel<T, 128, true>
                             : &detail::potrf_diag_rows_kernel<T, 128, false>;
        kernel<<<1, threads, 0, s>>>(at(off, off), lda, int(k), info, off, flag, flag_base);
      }
      DLA_CUDA_CHECK_LAUNCH();
      return;
    }
    constexpr std::size_t smem = detail::potrf_diag_smem_bytes<T>();  // > 48 KB: opt in
    auto* kernel = &detail::potrf_diag_kernel<T>;
    DLA_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    kernel<<<1, detail::diag_threads<T>(), smem, s>>>(at(off, off), lda, int(k), upper, info, off,
                                                      flag, flag_base);
    DLA_CUDA_CHECK_LAUNCH();
  }

  // The diagonal block (jb <= kDiagMax) and the panel below it (upper: right
  // of it), overlapped: potrf_panel_kernel is launched as a programmatic
  // dependent of the diagonal kernel and follows its progress through
  // `flag` (values from flag_base on; potrf_kernels.cuh). Only for streams
  // that no other call shares the flag with (the look-ahead's crit stream).
  void diag_and_panel(index_t off, index_t jb, index_t r, int* flag, int flag_base) const {
    diag(off, jb, flag, flag_base);
    if (r <= 0) return;
    const bool narrow = jb <= 128;  // the 128-wide layout: less shared memory (float 78 KB, not 103)
    const std::size_t smem = narrow ? detail::potrf_panel_smem_bytes<T, 128>()
                                    : detail::potrf_panel_smem_bytes<T, detail::kDiagMax>();
    auto* kernel = !narrow                  ? &detail::potrf_panel_kernel<T, detail::kDiagMax>
                   : !panel_ahead_enabled() ? &detail::potrf_panel_kernel<T, 128>
                                            : &detail::potrf_panel_kernel<T, 128, true>;
    if constexpr (std::is_same_v<T, float>)
      if (narrow && panel_ahead_enabled() && panel_rolled_enabled())
        kernel = panel_bcast_enabled() ? &detail::potrf_panel_kernel<T, 128, true, true, true>
                                       : &detail::potrf_panel_kernel<T, 128, true, true>;
    const T* L11 = at(off, off);
    T* P = upper ? at(off, off + jb) : at(off + jb, off);
    const dim3 grid(unsigned((r + detail::kPanelRows - 1) / detail::kPanelRows));
    // A programmatic dependent of the diagonal kernel (see above).
    dla::detail::KernelLaunch launch(reinterpret_cast<cudaStream_t>(s), grid,
                                     dim3(detail::kPanelThreads), smem, true);
    if constexpr (std::is_same_v<T, float>) {
      // The lower broadcast form with its copier warp (potrf_panel_copier.cuh,
      // session 53), where the copier's 16-byte copies of L11 are aligned.
      if (!upper && kernel == &detail::potrf_panel_kernel<T, 128, true, true, true> &&
          panel_copier_enabled() && reinterpret_cast<std::uintptr_t>(L11) % 16 == 0 &&
          lda % 4 == 0) {
        auto* copier = &detail::potrf_panel_copier_kernel;
        DLA_CUDA_CHECK(
            cudaFuncSetAttribute(copier, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        launch.shape(grid, dim3(detail::kCopierThreads), smem);
        launch(copier, L11, P, lda, int(jb), r, static_cast<const int*>(flag), flag_base);
        return;
      }
    }
    DLA_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    launch(kernel, L11, P, lda, int(jb), r, upper, static_cast<const int*>(flag), flag_base);
  }

  // L21 = A21 L11^-T for the rows off+jb .. off+n of block column `off`.
  void panel(index_t off, index_t jb, index_t r) const {
    if (r <= 0) return;
    if (!upper)
      detail::trsm<T>(s, Side::Right, Uplo::Lower, Op::T, Diag::NonUnit, r, jb, T(1), at(off, off), lda,
                at(off + jb, off), lda);
    else
      detail::trsm<T>(s, Side::Left, Uplo::Upper, Op::T, Diag::NonUnit, jb, r, T(1), at(off, off), lda,
                at(off, off + jb), lda);
  }

  // Top level with look-ahead on two internal streams. The block columns go
  // in groups of `depth` (d); the side stream updates the far part of the
  // trailing matrix once per group, with all d panels of the group at once
  // (k = d nb: a rank-k GEMM runs faster the deeper k is), while the critical
  // stream keeps the next block columns up to date itself:
  //   crit, step b inside a group starting at block column gs:
  //     diag(b), panel(b);
  //     not the group's last step: update block column b+1 with panels gs..b;
  //     the last step: [wait rest(previous group)], update the next group's d
  //       block columns (one trapezoid) with panels gs..b;
  //   side, after the group's last panel: rest(group) = everything right of
  //     the next group, with panels gs..b, in two launches: the columns of
  //     the group after next, then the rest (where potrf_rest_split says so).
  // A block column of group g+1 gets group g's panels from crit, and the
  // earlier panels from rest(g-1) (whose region starts at group g+1), whose
  // first launch crit waits for before it first writes there (rest(g-1)'s
  // second launch, right of group g+1, comes before rest(g)'s first on the
  // side stream). So the two streams never write the same block, and
  // rest(g) overlaps the d steps of group g+1.
  // d = 1 is the classic depth-1 look-ahead. Both streams start after the
  // work queued on s and s waits for both at the end, so the call is one
  // stream-ordered operation on s.
  void factor_lookahead(index_t n, index_t nb, index_t depth, bool tensor_cores) const {
    LookaheadResources& res = lookahead_resources();
    const cudaStream_t caller = reinterpret_cast<cudaStream_t>(s);
    const cudaStream_t crit = res.crit;
    // The bulk update on a part of the SMs where potrf_side_sms says so, so
    // that the critical kernels find SMs free of update blocks.
    const index_t side_sms = potrf_side_sms(n, tensor_cores, res.sm_count);
    cudaStream_t side = side_sms > 0 ? detail::sm_partition_stream(int(side_sms)) : nullptr;
    if (side == nullptr) side = res.side;  // all SMs, or no green contexts here
    // rest(group) in two launches where the bulk update runs on all SMs
    // (potrf_rest_split, potrf_blocking.cpp).
    const bool split_rest = potrf_rest_split(side == res.side);
    Potrf<T> c{reinterpret_cast<stream_t>(crit), upper, A, lda, info, tensor_cores, leaf_diag,
               res.sm_count};
    // The leaf diagonal kernel in the last steps where the rule does not
    // take it for the whole order (potrf_leaf_tail, potrf_blocking.cpp).
    const index_t leaf_tail = std::is_same_v<T, float> && !leaf_diag ? potrf_leaf_tail(n) : 0;
    const Potrf<T> on_side{reinterpret_cast<stream_t>(side), upper, A, lda, info};
    DLA_CUDA_CHECK(cudaEventRecord(res.start, caller));
    DLA_CUDA_CHECK(cudaStreamWaitEvent(crit, res.start, 0));
    DLA_CUDA_CHECK(cudaStreamWaitEvent(side, res.start, 0));
    DLA_CUDA_CHECK(cudaEventRecord(res.rest_done, side));
    DLA_CUDA_CHECK(cudaMemsetAsync(res.flag, 0, sizeof(int), crit));
    LookaheadTrace trace;
    trace.start(crit);
    int step = 0;
    index_t gs = 0;  // first column of the current group
    // Half trapezoids (potrf_trap_half, potrf_blocking.cpp): in a group of
    // d >= 2 panels, once its first (d + 1) / 2 panels
    // (potrf_trap_half_panels) are done the side stream
    // applies them to the next group's trapezoid (after rest(previous group),
    // which writes there too, in the side stream's order), so that the
    // critical trapezoid at the group's end applies only the other panels.
    const bool trap_half = potrf_trap_half(n, std::is_same_v<T, float> && tensor_cores);
    // Groups of potrf_group_depth panels: deeper while the trailing matrix
    // is large (potrf_blocking.cpp), where the bulk update bounds the steps.
    auto gdepth = [&](index_t col) {
      return potrf_group_depth(n, col, depth, std::is_same_v<T, float> && tensor_cores);
    };
    for (index_t j = 0; j < n; j += nb, ++step) {
      const index_t jb = std::min(nb, n - j);
      const index_t r = n - j - jb;
      trace.mark(step, LookaheadTrace::kDiag, crit);
      if (leaf_tail > 0 && n - j <= leaf_tail) c.leaf_diag = true;
      if (jb <= detail::kDiagMax && fused_panel_enabled()) {
        c.diag_and_panel(j, jb, r, res.flag, step * detail::kPanelFlagStep);
      } else {
        c.factor(j, jb, detail::kDiagMax);
        c.panel(j, jb, r);
      }
      trace.mark(step, LookaheadTrace::kPanel, crit);
      if (r == 0) break;
      const index_t c0 = j + jb, kk = c0 - gs;  // the group's panels so far: columns gs..c0-1
      const index_t gd = gdepth(gs);            // the group's panels in all
      // Whether the group's first hp panels ((gd + 1) / 2 by the rule,
      // potrf_trap_half_panels) go to the next trapezoid on the side stream
      // (at step hp of the group, where gs + gd nb < n whenever the group
      // reaches its last step).
      const bool halved = trap_half && gd >= 2;
      const index_t hp = halved ? potrf_trap_half_panels(gd) : 0;  // panels on the side
      if (kk < gd * nb) {  // not the group's last panel
        const index_t gend = gs + gd * nb;  // the next group
        if (halved && kk == hp * nb && gend < n) {
          DLA_CUDA_CHECK(cudaEventRecord(res.half_ready, crit));
          DLA_CUDA_CHECK(cudaStreamWaitEvent(side, res.half_ready, 0));
          const index_t rn = n - gend;
          on_side.syrk(gend, rn, gs, kk, std::min(gdepth(gend) * nb, rn));
          DLA_CUDA_CHECK(cudaEventRecord(res.half_done, side));
        }
        c.crit_syrk(c0, r, gs, kk, std::min(nb, r));  // block column b+1 only
        trace.mark(step, LookaheadTrace::kUpdated, crit);
        continue;
      }
      DLA_CUDA_CHECK(cudaEventRecord(res.panel_done, crit));
      DLA_CUDA_CHECK(cudaStreamWaitEvent(crit, res.rest_done, 0));  // rest(previous group)
      // Halved: the panels gs..tp0-1 are already in the trapezoid (side stream).
      const index_t tp0 = halved ? gs + hp * nb : gs;
      if (halved) DLA_CUDA_CHECK(cudaStreamWaitEvent(crit, res.half_done, 0));
      trace.mark(step, LookaheadTrace::kWaited, crit);
      const index_t wcol = std::min(gdepth(c0) * nb, r);  // the next group's columns
      // The next group's block columns (a trapezoid). Its first block tells
      // the side stream that it has started (where it runs potrf_update_kernel).
      const bool gate = r > wcol && side_gate_enabled();
      const unsigned long long epoch = gate ? ++res.gate_epoch : 0;
      const bool gated =
          c.crit_syrk(c0, r, tp0, c0 - tp0, wcol, gate ? res.gate_word : nullptr, epoch);
      trace.mark(step, LookaheadTrace::kUpdated, crit);
      if (r > wcol) {
        DLA_CUDA_CHECK(cudaStreamWaitEvent(side, res.panel_done, 0));
        // rest(group) waits until the trapezoid's first block has started
        // (side_gate_kernel), so that its first wave is placed first. When
        // both started together and the bulk update's blocks took the SMs
        // first, the trapezoid ran on the ~36 SMs left: 31-37 us instead of
        // 11-12 (one wave) or 21-24 (two) at n = 4096 (session 31's CUPTI
        // timeline; spotrf 3000 3% faster with the gate, 4096 0.6%).
        if (gated) {
          detail::side_gate_kernel<<<1, 32, 0, side>>>(res.gate_word, epoch);
          DLA_CUDA_CHECK_LAUNCH();
        }
        trace.mark(step, LookaheadTrace::kRestStart, side);
        // The next group's trapezoid needs only the part of rest(group) that
        // meets its columns: the first `wnext` columns of the region. Where
        // split_rest, rest(group) goes in two launches, those columns first,
        // and the event crit waits for follows that part (the side stream's
        // order keeps the rest ahead of the next rest(group), which writes
        // the same columns).
        const index_t rr = r - wcol, wnext = std::min(gdepth(c0 + wcol) * nb, rr);
        if (split_rest && wnext < rr) {
          on_side.syrk(c0 + wcol, rr, gs, kk, wnext);
          DLA_CUDA_CHECK(cudaEventRecord(res.rest_done, side));
          on_side.syrk(c0 + wcol + wnext, rr - wnext, gs, kk, rr - wnext);
        } else {
          on_side.syrk(c0 + wcol, rr, gs, kk, rr);
          DLA_CUDA_CHECK(cudaEventRecord(res.rest_done, side));
        }
        trace.mark(step, LookaheadTrace::kRestEnd, side);
      }
      gs = c0;
    }
    DLA_CUDA_CHECK(cudaEventRecord(res.crit_done, crit));
    DLA_CUDA_CHECK(cudaEventRecord(res.rest_done, side));
    DLA_CUDA_CHECK(cudaStreamWaitEvent(caller, res.crit_done, 0));
    DLA_CUDA_CHECK(cudaStreamWaitEvent(caller, res.rest_done, 0));
    trace.report(n, nb, depth);
  }

  // Blocked right-looking factorization of the n x n block at (off, off);
  // blocks of order <= kDiagMax in one potrf_diag_kernel launch.
  void factor(index_t off, index_t n, index_t nb) const {
    if (n <= detail::kDiagMax) return diag(off, n);
    for (index_t j = 0; j < n; j += nb) {
      const index_t jb = std::min(nb, n - j);
      const index_t r = n - j - jb;
      factor(off + j, jb, detail::kDiagMax);
      panel(off + j, jb, r);
      syrk(off + j + jb, r, off + j, jb, r);
    }
  }
};

// The factorization proper, in place on an A that passed the checks.
template <class T>
void potrf_factor(stream_t s, Uplo uplo, index_t n, T* A, index_t lda, int* info) {
  Potrf<T> p{s, uplo == Uplo::Upper, A, lda, info};
  p.leaf_diag = std::is_same_v<T, float> && potrf_leaf_diag(n);
  const index_t nb = potrf_block_size(n);
  // n <= kDiagMax: the whole matrix is one diagonal block, one launch
  // (factor's first line), whatever nb says.
  if (n <= 2 * nb || n <= detail::kDiagMax || !lookahead_enabled()) {
    p.factor(0, n, nb);
    return;
  }
  const bool tensor_cores = potrf_tensor_core_updates(std::is_same_v<T, float>);
  p.factor_lookahead(n, nb, potrf_update_depth(n, tensor_cores), tensor_cores);
}

template <class T>
int potrf_impl(stream_t s, Uplo uplo, index_t n, T* A, index_t lda, int* info, void* workspace,
               std::size_t workspace_bytes) {
  if (uplo != Uplo::Lower && uplo != Uplo::Upper) return -1;
  if (n < 0) return -2;
  if (A == nullptr && n > 0) return -3;
  if (lda < std::max<index_t>(1, n)) return -4;
  if (info == nullptr) return -5;
  DLA_CUDA_CHECK(cudaMemsetAsync(info, 0, sizeof(int), s));
  if (n == 0) return 0;
  if constexpr (std::is_same_v<T, float>) {
    // A misaligned A factored in an aligned copy (potrf_pads,
    // cholesky_cuda.hpp), where the workspace is large enough and aligned.
    auto* W = static_cast<float*>(workspace);
    const std::size_t need = spotrf_buffer_size(n, A, lda);
    const index_t ldw = aligned_ld(n);
    if (W != nullptr && need > 0 && workspace_bytes >= need &&
        columns_aligned16(W, ldw, sizeof(float))) {
      const auto cs = reinterpret_cast<cudaStream_t>(s);
      detail::copy_triangle(cs, uplo == Uplo::Upper, n, A, lda, W, ldw);
      potrf_factor<T>(s, uplo, n, W, ldw, info);
      detail::copy_triangle(cs, uplo == Uplo::Upper, n, W, ldw, A, lda);
      return 0;
    }
  }
  potrf_factor<T>(s, uplo, n, A, lda, info);
  return 0;
}

}  // namespace

bool potrf_tensor_core_updates(bool single) {
  return single ? solver_fp32_gemm() == Fp32Gemm::Tf32x3
                : dgemm_auto_choice(1, 1).rfind("dmma", 0) == 0;
}

int spotrf(stream_t stream, Uplo uplo, index_t n, float* A, index_t lda, int* info,
           void* workspace, std::size_t workspace_bytes) {
  return potrf_impl<float>(stream, uplo, n, A, lda, info, workspace, workspace_bytes);
}
int dpotrf(stream_t stream, Uplo uplo, index_t n, double* A, index_t lda, int* info,
           void* workspace, std::size_t workspace_bytes) {
  return potrf_impl<double>(stream, uplo, n, A, lda, info, workspace, workspace_bytes);
}

}  // namespace dla::cuda
