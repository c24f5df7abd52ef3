# Cholesky tests: host paths (CI) and GPU tests that skip without a device.
# cuSOLVER is linked into the test only, as the reference factorization.
set(cholesky_test_libs dla_solvers)
if(DLA_HAVE_CUDA)
  list(APPEND cholesky_test_libs CUDA::cusolver CUDA::cudart)
endif()
dla_add_test(cholesky_test SOURCES cholesky_test.cpp cholesky_test_cuda.cpp LIBS ${cholesky_test_libs})

# The device tests again under other blocking rules (the variables are read
# once per process): odd block sizes with deep groups, partial last groups,
# failing minors inside a group whose bulk update is still deferred. Without
# a GPU they skip like the rest.
function(dla_cholesky_variant name filter)
  add_test(NAME cholesky_test.blocking_${name} COMMAND cholesky_test --gtest_filter=${filter})
  set_tests_properties(cholesky_test.blocking_${name} PROPERTIES ENVIRONMENT "${ARGN}"
                       TIMEOUT 900)
endfunction()
# The cases most variants run: factor and solve against the host at small
# and large orders, and a failing minor.
set(DLA_CHOLESKY_CORE_CASES
  "CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor")
dla_cholesky_variant(nb48_depth3
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor
  DLA_POTRF_NB=48 DLA_POTRF_DEPTH=3)
dla_cholesky_variant(nb128_depth4
  CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_NB=128 DLA_POTRF_DEPTH=4)
# The depth the rule takes from 16384 (session 35), at the test sizes: groups
# of 10 panels, in-group updates up to k = 1280 on sgemmt's wgmma kernel.
dla_cholesky_variant(nb128_depth10
  CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_NB=128 DLA_POTRF_DEPTH=10)
dla_cholesky_variant(nb64_depth2_strsm_panel
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor
  DLA_POTRF_NB=64 DLA_POTRF_DEPTH=2 DLA_POTRF_FUSED_PANEL=0)
# The diagonal blocks of order <= 128 go through potrf_diag_tiles_kernel by
# default (float and double); this entry keeps the row kernel
# (DLA_POTRF_DIAG_TILES=0; up to 64 in double, then potrf_diag_kernel) covered.
dla_cholesky_variant(row_diag_kernel
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot
  DLA_POTRF_DIAG_TILES=0)

# The float diagonal blocks of order <= 128 through potrf_diag_leaf_kernel
# at every n (DLA_POTRF_DIAG_LEAF=1; the rule, potrf_leaf_diag, takes it up
# to 12288, so the plain entries run it too; sessions 36-37): 16-column
# leaves, failing minors inside and on the edges of a leaf, the look-ahead at
# large n.
dla_cholesky_variant(leaf_diag_kernel
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot:CholeskyDevice.LargeSizes:CholeskyDevice.MatchesCusolver
  DLA_POTRF_DIAG_LEAF=1)

# Session 55's large-n knobs at the test sizes: the tile diagonal kernel up
# to a trailing order of 2000, then the leaf kernel (DLA_POTRF_LEAF_TAIL, the
# kernel switched mid-factorization); a first group of 2 panels and groups of
# one panel once the trailing order is at most 3000 (DLA_POTRF_FIRST_DEPTH,
# DLA_POTRF_LATE_DEPTH / _TRAILING: groups of changing depth, the trapezoid
# of a deep group feeding a shallow one).
dla_cholesky_variant(leaf_tail
  ${DLA_CHOLESKY_CORE_CASES}:CholeskyDevice.MatchesCusolver:CholeskyHost.LargeOrderKnobs
  DLA_POTRF_DIAG_LEAF=0 DLA_POTRF_LEAF_TAIL=2000)
dla_cholesky_variant(first_late_groups
  ${DLA_CHOLESKY_CORE_CASES}:CholeskyDevice.MatchesCusolver:CholeskyDevice.LowLevelInfoAndUntouchedTriangle:CholeskyHost.LargeOrderKnobs
  DLA_POTRF_FIRST_DEPTH=2 DLA_POTRF_LATE_DEPTH=1 DLA_POTRF_LATE_TRAILING=3000)

# The float diagonal blocks of order 65..128 through the opt-in
# potrf_diag_split_kernel (DLA_POTRF_DIAG_SPLIT=1; the default is the tile
# kernel).
dla_cholesky_variant(split_diag_kernel
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot
  DLA_POTRF_DIAG_SPLIT=1)

# The device tests again with the FP32 products of the solvers on the CUDA
# cores (DLA_FP32_GEMM=native). The plain entry runs the default mode
# (gemm_cuda.hpp, solver_fp32_gemm: Tf32x3 on Hopper, else Native), so on the
# H200 both modes stay covered.
add_test(NAME cholesky_test.native_gemm COMMAND cholesky_test --gtest_filter=CholeskyDevice.*)
set_tests_properties(cholesky_test.native_gemm PROPERTIES ENVIRONMENT DLA_FP32_GEMM=native TIMEOUT 900)

# The bulk update confined to 16 SMs for every group (DLA_POTRF_SIDE_SMS;
# the default rule, potrf_side_sms, uses a green-context partition only where
# it pays): the critical stream then runs far ahead of a slow bulk update, so
# a missing ordering between the two shows up as a wrong factor.
dla_cholesky_variant(side_16_sms
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_SIDE_SMS=16)

# nb = 100: the look-ahead's critical-path updates have k = 100 d for d
# panels; k = 100 and 300 are not multiples of 8, so with tensor-core updates
# potrf_update_kernel falls back from its 3xTF32 variant to the CUDA cores
# (potrf.cu, crit_syrk), and k = 200 runs the 3xTF32 variant, in one
# factorization. The default nb (128) runs only the 3xTF32 variant up to
# k = 256, DLA_FP32_GEMM=native only the CUDA-core one.
dla_cholesky_variant(nb100_crit_update_cuda_cores
  ${DLA_CHOLESKY_CORE_CASES}
  DLA_POTRF_NB=100)

# The fused panel in left-looking order (DLA_POTRF_PANEL_AHEAD=0; the
# right-looking order is the default since session 30): every chunk of
# 128-wide panels, and partial chunks (nb 100: jb = 100, the last chunk 4
# columns wide). The default order is covered with nb 100 by
# nb100_crit_update_cuda_cores.
dla_cholesky_variant(panel_left
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_PANEL_AHEAD=0)
dla_cholesky_variant(panel_left_nb100
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor
  DLA_POTRF_PANEL_AHEAD=0 DLA_POTRF_NB=100)

# The float right-looking fused panel in its unrolled form
# (DLA_POTRF_PANEL_ROLLED=0; the rolled form is the float default since
# session 35 and runs in every other entry, with partial chunks in
# nb100_crit_update_cuda_cores; double always runs the unrolled form): full
# chunks (nb 128) and a partial last chunk (nb 100), both uplo.
dla_cholesky_variant(panel_unrolled
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_PANEL_ROLLED=0)
dla_cholesky_variant(panel_unrolled_nb100
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor
  DLA_POTRF_PANEL_ROLLED=0 DLA_POTRF_NB=100)

# nb = 192: block columns wider than 128 take the fused panel's wide layout
# (potrf_panel_kernel<T, kDiagMax>, which loads each chunk's row block at the
# chunk's start) and the 256-wide diagonal kernel. No default rule picks
# nb > 128, so without this entry that path would run in no test (added in
# session 29, when the wide layout's loads moved to cp.async).
dla_cholesky_variant(nb192_wide_panel
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_NB=192)

# The bulk update launched without waiting for the critical trapezoid's
# first block (DLA_POTRF_SIDE_GATE=0; potrf_switches.cuh, side_gate_enabled).
dla_cholesky_variant(side_ungated
  ${DLA_CHOLESKY_CORE_CASES}
  DLA_POTRF_SIDE_GATE=0)

# Each group's bulk update in two launches, the next trapezoid waiting for
# the first only (potrf_rest_split: by default where the bulk update runs on
# all SMs, n >= 6144, so the plain entries run both forms), forced on at
# every n (on the 96-SM partition too) and off at every n.
dla_cholesky_variant(rest_split_forced
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_REST_SPLIT=1)
dla_cholesky_variant(rest_unsplit
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_REST_SPLIT=0)

# The float diagonal blocks through the tile kernel at every n
# (DLA_POTRF_DIAG_LEAF=0; the rule takes it from 12289): the test sizes,
# failing minors, NaN and subnormal pivots.
dla_cholesky_variant(tile_diag_kernel
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver:CholeskyDevice.DiagonalBlockKernel:CholeskyDevice.NaNFailsAtItsPivot:CholeskyDevice.SubnormalPivot
  DLA_POTRF_DIAG_LEAF=0)

# The rolled fused panel in the shuffled layout (DLA_POTRF_PANEL_BCAST=0; the
# broadcast layout is the float default since session 37 and runs in every
# other entry, potrf_panel.cuh): full chunks and partial last chunks (nb 100).
dla_cholesky_variant(panel_shuffled
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_PANEL_BCAST=0)
dla_cholesky_variant(panel_shuffled_nb100
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.StopsAtKnownMinor
  DLA_POTRF_PANEL_BCAST=0 DLA_POTRF_NB=100)

# The look-ahead's deeper early groups (potrf_group_depth: depth + 2 panels
# below 6144, depth + 1 from 6144, while the trailing matrix is larger than
# 2600, by default for spotrf on the tensor cores, so the plain entries cover
# them at 3001, 4097 and 8192), forced on for dpotrf too and off.
dla_cholesky_variant(early_groups_forced
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver:CholeskyDevice.LowLevelInfoAndUntouchedTriangle
  DLA_POTRF_EARLY_GROUPS=1)
dla_cholesky_variant(early_groups_off
  ${DLA_CHOLESKY_CORE_CASES}
  DLA_POTRF_EARLY_GROUPS=0)

# The next trapezoid in two halves of k, the first on the side stream
# (potrf_trap_half: by default spotrf on the tensor cores below 4608, so the
# plain entries run it at 3001 and 4097 and not at 8192), forced on at every n
# for both precisions (groups of 2 at least: depth 2, and the deep early
# groups) and off.
dla_cholesky_variant(trap_half_forced
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver:CholeskyDevice.LowLevelInfoAndUntouchedTriangle
  DLA_POTRF_TRAP_HALF=1 DLA_POTRF_DEPTH=2)
dla_cholesky_variant(trap_half_deep_groups
  ${DLA_CHOLESKY_CORE_CASES}
  DLA_POTRF_TRAP_HALF=1)
# Session 52's knobs: all but a group's last panel on the side stream, and
# deeper early groups (6 panels at 4096) with the half trapezoids.
dla_cholesky_variant(trap_half_panels_late
  ${DLA_CHOLESKY_CORE_CASES}
  DLA_POTRF_TRAP_HALF=1 DLA_POTRF_TRAP_HALF_PANELS=15)
dla_cholesky_variant(early_groups_deeper
  ${DLA_CHOLESKY_CORE_CASES}
  DLA_POTRF_EARLY_EXTRA=4 DLA_POTRF_EARLY_TRAILING=2000)
dla_cholesky_variant(knob_overrides CholeskyHost.KnobOverrides
  DLA_POTRF_TRAP_HALF_PANELS=3 DLA_POTRF_EARLY_EXTRA=4 DLA_POTRF_EARLY_TRAILING=2000)
dla_cholesky_variant(trap_half_off
  ${DLA_CHOLESKY_CORE_CASES}
  DLA_POTRF_TRAP_HALF=0)

# The fused panel's copier warp (potrf_panel_copier.cuh, the float lower
# default since session 53) at nb = 100 (a partial last chunk of 4 columns),
# and the broadcast form without it (DLA_POTRF_PANEL_COPIER=0; the upper
# triangle and misaligned blocks take that form by default).
dla_cholesky_variant(panel_copier_nb100
  ${DLA_CHOLESKY_CORE_CASES}
  DLA_POTRF_NB=100)
dla_cholesky_variant(panel_copier_off
  ${DLA_CHOLESKY_CORE_CASES}:CholeskyDevice.MatchesCusolver:CholeskyDevice.BackToBackOnTwoStreams:CholeskyDevice.LowLevelInfoAndUntouchedTriangle
  DLA_POTRF_PANEL_COPIER=0)

# The critical-path update's tile on a cluster of 2 CTAs instead of the
# default 4 (potrf_update_cluster.cuh), and on one CTA (potrf_update_kernel,
# DLA_POTRF_CRIT_CLUSTER=0; session 40).
dla_cholesky_variant(crit_cluster_2
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_CRIT_CLUSTER=2)
dla_cholesky_variant(crit_one_cta
  CholeskyDevice.FactorAndSolveMatchHost:CholeskyDevice.LargeSizes:CholeskyDevice.StopsAtKnownMinor:CholeskyDevice.MatchesCusolver
  DLA_POTRF_CRIT_CLUSTER=0)
# The aligned copy of a misaligned A (potrf_pads) at every order, not only
# from kPotrfPadMin: n = 1, 65 (one diagonal launch), 300 (look-ahead, nb 64).
dla_cholesky_variant(pad_all CholeskyDevice.LowLevelInfoAndUntouchedTriangle DLA_POTRF_PAD=1)

