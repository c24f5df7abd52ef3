#pragma once
// spotrf/dpotrf's environment switches: the A/B knobs of the look-ahead and
// its kernels (DLA_POTRF_*), each read once per process. Host code for
// potrf.cu only (an unnamed namespace: one translation unit includes it);
// the sizes' rules (block size, depths, side SMs, ...) are in
// potrf_blocking.cpp, where the tests can reach them.
#include "../env_knob.hpp"

namespace dla::cuda {
namespace {
// Comparison switches: on unless the variable is set to a value starting with '0'.
bool env_switch(const char* name) { return detail::env_yes_no(name) != 0; }
// Opt-in switches: off unless the variable is set to a value starting with '1'.
bool env_opt_in(const char* name) { return detail::env_yes_no(name) == 1; }

// DLA_POTRF_FUSED_PANEL=0 solves the look-ahead's panels with strsm after
// the diagonal kernel instead of overlapping them (comparison runs).
bool fused_panel_enabled() {
  static const bool v = env_switch("DLA_POTRF_FUSED_PANEL");
  return v;
}

// DLA_POTRF_DIAG_ROWS=0 factors every diagonal block with potrf_diag_kernel
// (comparison runs); by default orders <= diag_rows_max use the row kernel.
bool diag_rows_enabled() {
  static const bool v = env_switch("DLA_POTRF_DIAG_ROWS");
  return v;
}

// DLA_POTRF_DIAG_TILES=0 factors the diagonal blocks of order <= 128 with the
// row kernel (double: up to 64, then potrf_diag_kernel) instead of the tile
// kernel (comparison runs).
bool diag_tiles_enabled() {
  static const bool v = env_switch("DLA_POTRF_DIAG_TILES");
  return v;
}

// DLA_POTRF_DIAG_SPLIT=1 factors the float diagonal blocks of order 65..128
// with potrf_diag_split_kernel instead of the tile kernel. Opt-in: alone it
// is faster (16.5 against 26-31 us per 128-block), but in place it takes as
// long as the tile kernel (~26 us, session 34's stamps) and releases the
// panel in two steps instead of four: spotrf 4096 1.72 ms against 1.51
// (docs/cholesky-log.md, session 34).
bool diag_split_enabled() {
  static const bool v = env_opt_in("DLA_POTRF_DIAG_SPLIT");
  return v;
}

// DLA_POTRF_PANEL_COPIER=0 runs the fused panel's float lower broadcast form
// without its copier warp (potrf_panel_copier.cuh; the default since session
// 53: spotrf 4096 1.217-1.223 ms against 1.297-1.310 on an H100).
bool panel_copier_enabled() {
  static const bool v = env_switch("DLA_POTRF_PANEL_COPIER");
  return v;
}

// DLA_POTRF_PDL=0 launches the float tile kernel for diagonal blocks plainly
// instead of as a programmatic dependent of the kernel before it (A/B runs;
// DLA_GEMM_NO_PDL=1 does the same for the update GEMMs).
bool diag_pdl_enabled() {
  static const bool v = env_switch("DLA_POTRF_PDL");
  return v;
}

// DLA_POTRF_CRIT_UPDATE=0 runs the look-ahead's critical-path updates on
// the triangular GEMM instead of potrf_update_kernel (A/B runs).
bool crit_update_enabled() {
  static const bool v = env_switch("DLA_POTRF_CRIT_UPDATE");
  return v;
}

// DLA_POTRF_CRIT_TC=0 runs potrf_update_kernel on the CUDA cores even where
// the factorization's updates are on the tensor cores (A/B runs).
bool crit_tc_enabled() {
  static const bool v = env_switch("DLA_POTRF_CRIT_TC");
  return v;
}

// Set when the device refuses a cluster launch of the critical-path update
// (potrf_update_cluster.cuh): one CTA per tile from then on, in this process.
bool& crit_clusters_refused() {
  static bool v = false;
  return v;
}

// DLA_POTRF_PANEL_AHEAD=0 runs the fused panel of 128-wide block columns in
// left-looking order instead of the default right-looking one
// (potrf_panel.cuh; right-looking measured 2.4% faster at 4096 in session
// 29, the default since session 30; A/B runs).
bool panel_ahead_enabled() {
  static const bool v = env_switch("DLA_POTRF_PANEL_AHEAD");
  return v;
}

// DLA_POTRF_PANEL_ROLLED=0 runs the float right-looking fused panel in its
// unrolled form (potrf_panel.cuh: one copy of the chunk code per chunk, 89 KB
// against 30). Rolled is the float default since session 35 (H200, same
// runs, spotrf tf32x3 ms unrolled / rolled: 4096 1.523-1.527 / 1.515, 8192
// 5.249-5.280 / 5.194-5.233, 16384 27.17-27.22 / 26.95; the panel's summed
// tail at 4096 265 / 241 us). Double keeps the unrolled form: rolled it takes
// 130 registers, one block per SM instead of two, and was not measured.
bool panel_rolled_enabled() {
  static const bool v = env_switch("DLA_POTRF_PANEL_ROLLED");
  return v;
}

// The rolled fused panel in the broadcast layout (a warp's 32 lanes hold 32
// rows of one part: broadcast loads of L, a blocked solve; potrf_panel.cuh),
// the float default since session 37; DLA_POTRF_PANEL_BCAST=0 for the
// shuffled layout (H200, same run, spotrf tf32x3 ms shuffled / broadcast:
// 4096 1.501-1.504 / 1.470-1.472, 8192 5.103-5.112 / 4.996-5.004, 16384
// 24.66 / 24.12-24.20; docs/cholesky-log.md, session 37).
bool panel_bcast_enabled() {
  static const bool v = env_switch("DLA_POTRF_PANEL_BCAST");
  return v;
}

// DLA_POTRF_SIDE_GATE=0: rest(group) starts as soon as the group's last panel
// is done, racing the critical trapezoid for the SMs, instead of after the
// trapezoid's first block has started (A/B runs; session 31).
bool side_gate_enabled() {
  static const bool v = env_switch("DLA_POTRF_SIDE_GATE");
  return v;
}

// DLA_POTRF_LOOKAHEAD=0 turns the look-ahead off (for comparison runs).
bool lookahead_enabled() {
  static const bool v = env_switch("DLA_POTRF_LOOKAHEAD");
  return v;
}

}  // namespace
}  // namespace dla::cuda
