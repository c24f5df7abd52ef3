// The blocking rules of the device Cholesky (dla::cuda::spotrf/dpotrf), in
// one place for CUDA and CPU-only builds: the block size nb and the depth of
// the bulk trailing update (how many panels it applies at once, by the FP32
// product mode). Both were chosen from sweeps on the H200 (docs/cholesky.md);
// the environment variables override them for tuning runs.
#include <cstdlib>

#include "dla/solvers/cholesky_cuda.hpp"
#include "env_knob.hpp"

namespace dla::cuda {
namespace {

using detail::env_index;
using detail::env_yes_no;

// From this order the bulk update runs on all SMs (potrf_side_sms); below it
// on a green-context partition, where potrf_group_depth deepens the early
// groups more.
constexpr index_t kSideAllSmsFrom = 6144;

// potrf_leaf_tail's rule (session 55): the last 5000 columns.
constexpr index_t kLeafTail = 5000;

// potrf_group_depth's late groups (session 55): from this order, spotrf on
// the tensor cores caps the depth of the groups that start where the
// trailing order is at most kLateGroupsTrailing.
constexpr index_t kLateGroupsFrom = 10240;
constexpr index_t kLateGroupsTrailing = 4000;
constexpr index_t kLateGroupsDepth = 2;

}  // namespace

bool potrf_pads(index_t n) {
  static const int env = env_yes_no("DLA_POTRF_PAD");
  if (env >= 0) return env == 1;
  // Session 48, H100, spotrf tf32x3 in place (lda = n): 4096 1.31 ms,
  // 4097 1.77 (cuSOLVER 1.57 / 1.91): misaligned, the critical updates fall
  // back to sgemmt and the diagonal and panel kernels to 4-byte loads. The
  // copy in and out moves 8 n^2 bytes. Session 49, H100: 4097 1.41-1.45 ms
  // with the copy (31-33 us each way), and the copy won at every order tried
  // from 1025 up (docs/cholesky.md).
  return n >= kPotrfPadMin;
}

std::size_t spotrf_buffer_size(index_t n, const float* A, index_t lda) {
  if (n < 1 || columns_aligned16(A, lda, sizeof(float)) || !potrf_pads(n)) return 0;
  return sizeof(float) * std::size_t(aligned_ld(n)) * std::size_t(n);
}

std::size_t dpotrf_buffer_size(index_t, const double*, index_t) { return 0; }

index_t potrf_block_size(index_t n) {
  static const index_t env = env_index("DLA_POTRF_NB", 16, 4096);
  if (env) return env;
  // spotrf, DLA_POTRF_NB sweep with the one-launch update and the fused
  // panel (session 9): nb = 128 / 192 / 256 at 4096: 2.69 / 2.90 / 3.28 ms;
  // 8192: 8.59 / 8.64 / 9.20; 16384: 47.9 / 43.7 / 42.8 (there the update,
  // not the critical path, is the limit, and a deeper k runs the GEMM faster).
  // From session 15 the bulk update is deferred over `depth` panels, so a
  // deep k no longer needs a wide block: 16384 runs nb = 128 with depth 3-4
  // (38.8 / 38.5 ms against 42.8 for nb = 256, depth 1).
  if (n >= 1024) return 128;
  return 64;
}

index_t potrf_update_depth(index_t n, bool tensor_cores) {
  static const index_t env = env_index("DLA_POTRF_DEPTH", 1, 16);
  if (env) return env;
  // With the updates on the tensor cores (spotrf with solver_fp32_gemm() ==
  // Tf32x3, the default on Hopper) deeper pays (session 19, wgmma kernel, ms
  // at depth 3 / 4 / 6): 8192: 6.14 / 6.06 / 6.24; 16384: 31.2 / 29.6 / 28.5.
  // Between 4096 and 8192 depth 2 (session 20, after the panel kernel's
  // batched loads; spotrf ms at depth 1 / 2 / 3, tensor cores): 3000: 1.31 /
  // 1.30 / 1.36; 4096: 2.08 / 1.97 / 1.99; 5000: 2.99 / 2.68 / 2.73; 6144:
  // 4.26 / 3.67 / 3.68. A group of 2 halves the bulk update's C traffic, and
  // its k = 256 runs on the wgmma kernel.
  // From 6144 depth 3 (session 22, with the bulk update on 96 SMs): 6144:
  // 3.380 against 3.462 ms at depth 2 (session 21: 3.397 / 3.487); 5000:
  // 2.481 / 2.436, so not below.
  // Deeper from 10240 (session 35, after sgemmt took the wgmma kernel for the
  // in-group updates; H200 ms, two runs each): spotrf tf32x3 16384 at depth 6
  // / 8 / 10: 25.36-25.45 / 24.70-24.81 / 24.62-24.63; 12288 at 4 (the rule
  // before) / 6 / 8 / 10: 12.94-13.03 / 12.43-12.46 / 12.43-12.47 / 12.59;
  // 10240 at 4 / 5 / 6: 8.38-8.39 / 8.25-8.27 / 8.24-8.25; 8192 at 4 / 5 / 6:
  // 5.10-5.11 / 5.13 / 5.23-5.25. dpotrf (FP64 tensor cores, same rule):
  // 12288 at 4 / 6: 24.08-24.09 / 23.27-23.33; 16384 at 6 / 10: 47.80-47.86
  // / 46.40-46.52.
  if (tensor_cores) {
    if (n >= 16384) return 10;
    if (n >= 10240) return 6;
    if (n >= 8192) return 4;
    if (n >= 6144) return 3;
    if (n >= 4096) return 2;
    return 1;
  }
  // spotrf sweep (session 15, nb = 128), ms at depth 1 / 2 / 3 / 4: 4096:
  // 2.19 / 2.19 / - / -; 8192: 7.94 / 7.31 / 7.13 / 7.30; 16384 (nb 256 at
  // depth 1): 42.8 / 40.1 / 38.8 / 38.5. Session 20 (CUDA cores, depth 1 / 2
  // / 3): 4096: 2.08 / 1.98 / 2.01; 5000: 2.96 / 2.82 / 2.88; 6144: 4.26 /
  // 3.83 / 3.89.
  if (n >= 8192) return 3;
  if (n >= 4096) return 2;
  return 1;
}

index_t potrf_early_groups_trailing() {
  static const index_t env = env_index("DLA_POTRF_EARLY_TRAILING", 1, 1 << 30);
  return env ? env : kPotrfEarlyGroupsTrailing;
}

index_t potrf_group_depth(index_t n, index_t col, index_t depth, bool single_tensor_cores) {
  static const int env = env_yes_no("DLA_POTRF_EARLY_GROUPS");
  static const bool uniform = env_index("DLA_POTRF_DEPTH", 1, 16) != 0;
  // Session 39, H200, spotrf tf32x3 ms, the rule's depth in every group /
  // depth + 2 while n - col > 2600 (two runs each): 3000: 0.945, 0.939 /
  // 0.916, 0.921; 3500: 1.221, 1.214 / 1.128, 1.139; 4096: 1.370, 1.373 /
  // 1.350, 1.319; 4608: 1.681, 1.678 / 1.583, 1.579; 5000: 2.032, 2.039 /
  // 1.863, 1.868; 5500: 2.429, 2.433 / 2.188, 2.190; 6000: 2.910, 2.898 /
  // 2.576, 2.567. Uniform depth 3 (4096: 1.418, 1.419; 5000: 1.993, 1.961),
  // depth + 2 for the first 30 / 40 / 50 % of the columns, a threshold of
  // 2048, and explicit first groups at 4096 (2,4,4,2 / 2,3,4,3 / 4,4,4,4 /
  // 2,4,4,4 / 4,4,3,3 / 3,3,3,3,3 / 3,4,4,3: 1.317-1.356 against 1.321-1.322
  // for the rule's 4,4,4) were slower or no faster. Where the bulk update
  // runs on all SMs (n >= 6144), depth + 1 / + 2 / the rule: 6144: 2.661-2.685
  // / 2.771-2.778 / 2.680-2.686; 7168: 3.576-3.612 / 3.612-3.699 /
  // 3.725-3.726; 8192: 4.657-4.676 / 4.779-4.875 / 4.880-4.881; 10240:
  // 7.777-7.812 / 7.771-7.931 / 7.792-7.814; 12288: 11.898-11.926 /
  // 11.730-11.774 / 12.071-12.090; 14336: 17.385-17.406 / 17.214-17.250 /
  // 17.739-17.761; 16384: 23.736-23.763 / 23.595-23.647 / 23.823-23.881. So
  // + 1 from 6144 (never slower) and + 2 again from 12288, where it was the
  // faster of the two. dpotrf was slower with depth + 2 up to 8192 (4096:
  // 2.89-2.91 against 2.81-2.82): spotrf only.
  // A tuning knob (session 52, with the half trapezoids): DLA_POTRF_EARLY_EXTRA
  // sets the extra depth; the trailing order comes from
  // potrf_early_groups_trailing (DLA_POTRF_EARLY_TRAILING).
  static const index_t extra = env_index("DLA_POTRF_EARLY_EXTRA", 1, 16);
  // The late groups (session 55): at large n the last steps run with nothing
  // beside them, and a deep group's left-looking update of the next block
  // column has a deep k on a few tiles (k up to 1152 on 3-19 blocks, 30-51 us
  // a step in the last group at 16384). From 10240, spotrf on the tensor
  // cores takes groups of 2 once the trailing order is at most 4000. H100,
  // spotrf tf32x3 ms, three rounds, the rule before / groups of 2 from 4000
  // (/ and the leaf tail, potrf_leaf_tail): 10240 7.52-7.61 / 7.40-7.44;
  // 12288 11.49-11.64 / 11.40-11.46; 14336 16.95-17.13 / 16.85-16.87 /
  // 16.56-16.70; 16384 23.51-23.66 / 23.06-23.20 / 22.93-23.13. 8192, two
  // rounds: 4.52-4.55 / 4.50-4.53 (and from 2600, groups of 2 or 4: within
  // the spread), so not below 10240. A shallower first group (the 12 steps
  // before the first bulk update at 16384) was slower: 16384 with a first
  // group of 2 / 4 panels 23.89-23.99 / 23.66-23.72 against 23.45-23.54.
  // Tuning knobs: DLA_POTRF_LATE_DEPTH sets the cap at every order (spotrf
  // and dpotrf), DLA_POTRF_LATE_TRAILING the trailing order (4000),
  // DLA_POTRF_FIRST_DEPTH the depth of the group at column 0.
  static const index_t first = env_index("DLA_POTRF_FIRST_DEPTH", 1, 16);
  static const index_t late = env_index("DLA_POTRF_LATE_DEPTH", 1, 16);
  static const index_t late_trailing = [] {
    const index_t t = env_index("DLA_POTRF_LATE_TRAILING", 1, 1 << 30);
    return t ? t : kLateGroupsTrailing;
  }();
  if (first && col == 0) return first;
  const index_t cap =
      late ? late : single_tensor_cores && !uniform && n >= kLateGroupsFrom ? kLateGroupsDepth : 0;
  if (cap && n - col <= late_trailing) return depth < cap ? depth : cap;
  const bool on = env >= 0 ? env == 1 : single_tensor_cores && !uniform;
  if (!on || n - col <= potrf_early_groups_trailing()) return depth;
  if (extra) return depth + extra;
  return depth + (n < kSideAllSmsFrom || n >= 12288 ? 2 : 1);
}

index_t potrf_side_sms(index_t n, bool, index_t sm_count) {
  static const index_t env = env_index("DLA_POTRF_SIDE_SMS", 1, 100000);
  if (env) return env >= sm_count ? 0 : env;
  // Session 21, H200 (132 SMs), spotrf ms with the bulk update on all SMs /
  // on 96 (a green-context partition), same run, tensor cores: 2048: 0.759 /
  // 0.732; 3000: 1.295 / 1.216; 4096: 1.931 / 1.753; 5000: 2.641 / 2.446;
  // 6144: 3.600 / 3.456; 8192: 5.737 / 5.730. CUDA cores: 3000: 1.273 /
  // 1.208; 4096: 1.886 / 1.810; 6144: 3.712 / 3.731; 8192: 6.603 / 7.038.
  // 80 SMs was as good at 4096 and worse from 5000; a per-group share sized
  // to each group's update was worse everywhere (docs/cholesky.md).
  // Session 37, after the fused panel's broadcast layout and the leaf
  // diagonal kernel made the critical path shorter, spotrf tf32x3 ms with
  // 96 / 112 / 120 / all 132 SMs (DLA_POTRF_SIDE_SMS for every size of the
  // run), three runs each: 2048: 0.586-0.598 / 0.609-0.617 / 0.611-0.630 /
  // 0.610-0.619; 3000: 0.967-0.978 / 0.998-1.012 / 0.998-1.012 /
  // 1.038-1.046; 3500: 1.243-1.247 / 1.255-1.265 / 1.256-1.267 /
  // 1.289-1.298; 4096: 1.423-1.427 / 1.412-1.417 / 1.416-1.422 /
  // 1.411-1.417; 5000: 2.069-2.079 / 2.036-2.044 / 2.018-2.029 /
  // 2.031-2.050; 6144: 2.842-2.867 / 2.839-2.875 / 2.807-2.815 /
  // 2.786-2.799. So all SMs from 6144 with either kind of update. A second
  // share (120 from 4096, 96 below) is not taken: in a process that had
  // made both partitions, the 120-SM runs took 1.436-1.448 ms at 4096 and
  // 2.058-2.090 at 5000: slower than with 120 alone (1.413-1.427,
  // 2.030-2.047) and, at 4096, than with 96 alone (1.426-1.433). So a
  // process keeps to one partition, and the share does not depend on the
  // kind of update (the second parameter, kept for the interface).
  if (n >= kSideAllSmsFrom || sm_count < 32) return 0;
  return sm_count * 3 / 4 / 8 * 8;  // 96 of 132: the driver's granularity is 8 SMs
}

bool potrf_leaf_diag(index_t n) {
  static const int env = env_yes_no("DLA_POTRF_DIAG_LEAF");
  if (env >= 0) return env == 1;
  // Session 37, H200, with the fused panel's broadcast layout (before it the
  // panel's chain hid the leaf kernel's gain, session 36), spotrf tf32x3 ms
  // tile / leaf kernel, two runs each: 1024: 0.307-0.308 / 0.285-0.294;
  // 2048: 0.614-0.630 / 0.583-0.595; 3000: 1.015-1.027 / 0.983-0.992; 4096:
  // 1.470-1.472 / 1.426-1.431; 6144: 2.893-2.911 / 2.858-2.861; 8192:
  // 4.996-5.004 / 4.953-4.963; 10240: 8.194-8.197 / 8.120-8.144; 12288:
  // 12.290-12.296 / 12.267-12.293; 16384: 24.12-24.20 / 24.35-24.43 (there
  // the diagonal kernel runs beside the bulk update in most steps). At 12288
  // the two are within the spread. Below 1024 (nb = 64) it was not timed
  // end to end; alone the leaf kernel is the
  // faster one at orders 100 and 128 (session 36, leaf_probe; 64 was
  // timed only in its first form, 16.0 against 18.7 us).
  return n <= 12288;
}

index_t potrf_leaf_tail(index_t n) {
  // Session 55, H100, spotrf tf32x3 ms (the late groups of potrf_group_depth
  // on in both): 14336 16.85-16.87 without a tail / 16.56-16.70 with the
  // last 5000 columns on the leaf kernel; 16384 23.06-23.20 / 22.93-23.13
  // (three rounds each); before the late groups, 16384 23.45-23.54 / a tail
  // of 2600 23.37-23.54 / 5000 23.29-23.33 (two rounds).
  static const index_t env = env_index("DLA_POTRF_LEAF_TAIL", 1, 1 << 30);
  if (potrf_leaf_diag(n)) return 0;  // every step takes it already
  // Set, it holds also under DLA_POTRF_DIAG_LEAF=0 (the tile kernel up to
  // the tail: how the tests switch kernels mid-factorization at their sizes).
  if (env) return env;
  // potrf_leaf_diag(n) false with the override set: DLA_POTRF_DIAG_LEAF=0, no step.
  return env_yes_no("DLA_POTRF_DIAG_LEAF") == 0 ? 0 : kLeafTail;
}

bool potrf_trap_half(index_t n, bool single_tensor_cores) {
  static const int env = env_yes_no("DLA_POTRF_TRAP_HALF");
  if (env >= 0) return env == 1;
  // Session 51, H100, spotrf tf32x3 ms, three rounds, off / on: 2048 0.527-
  // 0.531 / 0.525-0.527 (no group of 2 panels there); 3000 0.889-0.891 /
  // 0.879-0.882; 4096 1.330-1.338 / 1.299-1.306; 5000 1.846-1.853 /
  // 1.889-1.907; 6144 2.668-2.699 / 2.791-2.810; 8192 4.659-4.701 /
  // 4.922-4.950. At 4096 the critical trapezoids after the deep groups went
  // from 50 / 42 / 40 us to 28 / 29 / 24 (traced); from 5000 the half on the
  // side stream delays the bulk update more than it saves.
  return single_tensor_cores && n < kPotrfTrapHalfBelow;
}

index_t potrf_trap_half_panels(index_t group_depth) {
  static const index_t env = env_index("DLA_POTRF_TRAP_HALF_PANELS", 1, 16);
  // Session 52, H200, spotrf tf32x3 ms, three rounds, the panels on the side
  // out of a group of 3 (3000) or 4 (4096, 4352): one / the rule then
  // (group_depth / 2) / all but the last: 3000 0.869-0.877 / 0.870-0.871 /
  // 0.843-0.853 (1 / 1 / 2 of 3); 4096 1.304-1.329 / 1.288-1.300 /
  // 1.302-1.308 (1 / 2 / 3 of 4); 4352 1.448-1.451 / 1.425-1.436 /
  // 1.426-1.437. H100, (group_depth + 1) / 2 / one: 2800 0.784-0.800 /
  // 0.752-0.795; 3000 0.852-0.860 / 0.875-0.878; 3500 1.075-1.083 /
  // 1.105-1.115; 3800 1.193-1.202 / 1.207-1.231. So the larger half.
  const index_t p = env ? env : (group_depth + 1) / 2;
  return p < group_depth ? p : group_depth - 1;
}

bool potrf_rest_split(bool side_on_all_sms) {
  static const int env = env_yes_no("DLA_POTRF_REST_SPLIT");
  if (env >= 0) return env == 1;
  // Session 38, H200, spotrf tf32x3 ms, split / one launch (the split for
  // every size of the run, two runs each): on all SMs (n >= 6144) 6144:
  // 2.720-2.737 / 2.795-2.797; 8192: 4.941-4.945 / 4.933-4.943; 16384:
  // 23.89-23.98 / 24.16-24.17. On the 96-SM partition the split was slower:
  // 1024: 0.288-0.302 / 0.278-0.286; 2048: 0.613-0.614 / 0.595-0.603; 3000:
  // 1.026-1.141 / 0.979-0.990; 4096: 1.493-1.495 / 1.423-1.428; 5000:
  // 2.174-2.180 / 2.070-2.085.
  return side_on_all_sms;
}

int potrf_crit_cluster(index_t tiles, index_t sm_count) {
  static const int size = [] {
    const char* e = std::getenv("DLA_POTRF_CRIT_CLUSTER");
    return e && (e[0] == '0' || e[0] == '2') ? e[0] - '0' : 4;
  }();
  // The bound's override, or -1 (the rule).
  static const index_t bound = std::getenv("DLA_POTRF_CRIT_CLUSTER_TILES")
                                   ? env_index("DLA_POTRF_CRIT_CLUSTER_TILES", 0, 1 << 20)
                                   : -1;
  // Session 40, H200, spotrf tf32x3 ms (two runs each), one CTA per tile /
  // clusters of 4 on every update / clusters of 4 up to SMs / 2 tiles (the
  // rule) / up to SMs tiles: 2048 0.557-0.564 / 0.513-0.516 / 0.516-0.518 /
  // 0.523; 3000 0.915-0.934 / 0.868-0.874 / 0.875-0.878 / 0.877-0.882; 4096
  // 1.328-1.345 / 1.333-1.338 / 1.323-1.332 / 1.343-1.363; 5000 1.869-1.884 /
  // 1.878-1.881 / 1.838-1.847 / 1.871-1.875; 8192 4.660-4.676 / 4.860-4.903 /
  // 4.620-4.621 / 4.680-4.691. Updates of ~110 tiles beside the bulk update
  // (the early steps at 4096; 440 CTAs) ran slower on clusters (stamps).
  const index_t limit = bound >= 0 ? bound : sm_count / 2;
  return tiles <= limit ? size : 0;
}

}  // namespace dla::cuda
