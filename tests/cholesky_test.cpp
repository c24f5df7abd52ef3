// Cholesky: factorization residual ||A - L L^T|| / (n ||A|| eps) <= 50 and
// solve backward error ||A x - b|| / (||A|| ||x|| n eps) <= 50, both uplo, on
// the host (CI) and the device (skips without a GPU), a matrix that stops
// being positive definite at a known minor, bad input, and the blocking
// rules. The low-level dla::cuda API is tested in cholesky_test_cuda.cpp
// (same binary); the shared helpers are in cholesky_test_util.hpp.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dla/core/config.hpp"
#include "dla/core/context.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/cholesky.hpp"
#include "dla/solvers/cholesky_cuda.hpp"
#include "test_util.hpp"

#if DLA_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "dla/core/cuda_check.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#endif

#include "cholesky_test_util.hpp"

namespace {

using namespace cholesky_test;

const index_t kHostSizes[] = {1, 2, 17, 127, 128, 129, 1000};

TEST(CholeskyHost, FactorAndSolve) {
  const dla::Context ctx = dla::Context::host();
  std::uint64_t seed = 1;
  for (Uplo u : {Uplo::Lower, Uplo::Upper})
    for (index_t n : kHostSizes) {
      check_factor_and_solve<float>(ctx, n, u, 3, seed++);
      check_factor_and_solve<double>(ctx, n, u, 2, seed++);
    }
  check_factor_and_solve<float>(ctx, 300, Uplo::Lower, 500, 77);  // many right-hand sides
}

// The largest host order (#5: n = 1 ... 3001 on both backends), in a
// test of its own: several 64-wide blocks' worth of the blocked host path's
// panel solves and rank updates, both triangles, both precisions.
TEST(CholeskyHost, FactorAndSolve3001) {
  const dla::Context ctx = dla::Context::host();
  std::uint64_t seed = 3001;
  for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
    check_factor_and_solve<float>(ctx, 3001, u, 3, seed++);
    check_factor_and_solve<double>(ctx, 3001, u, 2, seed++);
  }
}

TEST(CholeskyHost, StopsAtKnownMinor) {
  const dla::Context ctx = dla::Context::host();
  for (Uplo u : {Uplo::Lower, Uplo::Upper})
    for (index_t k : {index_t(0), index_t(5), index_t(63), index_t(64), index_t(200)}) {
      expect_minor<float>(ctx, 300, k, u);
      expect_minor<double>(ctx, 300, k, u);
    }
}

TEST(CholeskyHost, BadInput) {
  const dla::Context ctx = dla::Context::host();
  dla::Matrix<float> A = only_triangle<float>(random_spd(10, 3), Uplo::Lower);
  A(7, 2) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(dla::cholesky_factor<float>(ctx, A), dla::InvalidArgument);
  A(7, 2) = std::numeric_limits<float>::infinity();
  EXPECT_THROW(dla::cholesky_factor<float>(ctx, A), dla::InvalidArgument);
  dla::Matrix<double> R(4, 5);
  R.setOnes();
  EXPECT_THROW(dla::cholesky_factor<double>(ctx, R), dla::InvalidArgument);
  const auto c = dla::cholesky_factor<double>(ctx, random_spd(6, 4));
  EXPECT_THROW(dla::cholesky_solve<double>(ctx, c, dla::Matrix<double>(5, 2)),
               dla::DimensionMismatch);
  dla::Matrix<double> B = dla::Matrix<double>::Ones(6, 2);
  B(3, 1) = -std::numeric_limits<double>::infinity();  // X would be NaN, silently
  try {
    dla::cholesky_solve<double>(ctx, c, B);
    ADD_FAILURE() << "Inf in B accepted";
  } catch (const dla::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("cholesky_solve: B(3, 1)"), std::string::npos) << e.what();
  }
}

// The workspace rule (potrf_pads): only A's alignment and n matter, so fake
// addresses do here.
TEST(CholeskyHost, BufferSizeRule) {
  if (std::getenv("DLA_POTRF_PAD")) GTEST_SKIP() << "DLA_POTRF_PAD overrides the rule";
  const auto at = [](std::uintptr_t a) { return reinterpret_cast<const float*>(a); };
  const std::size_t f = sizeof(float);
  EXPECT_EQ(dla::cuda::spotrf_buffer_size(4096, at(256), 4096), 0u);
  EXPECT_EQ(dla::cuda::spotrf_buffer_size(4097, at(256), 4100), 0u);
  EXPECT_EQ(dla::cuda::spotrf_buffer_size(4097, at(256), 4097), f * 4128 * 4097);
  EXPECT_EQ(dla::cuda::spotrf_buffer_size(4096, at(260), 4096), f * 4096 * 4096);
  EXPECT_EQ(dla::cuda::spotrf_buffer_size(dla::cuda::kPotrfPadMin, at(256), 1025),
            f * 1024 * 1024);
  EXPECT_EQ(dla::cuda::spotrf_buffer_size(dla::cuda::kPotrfPadMin - 1, at(256), 1023), 0u);
  EXPECT_EQ(dla::cuda::spotrf_buffer_size(0, nullptr, 1), 0u);
  EXPECT_EQ(dla::cuda::dpotrf_buffer_size(4097, nullptr, 4097), 0u);
  EXPECT_EQ(dla::aligned_ld(1), 32);
  EXPECT_EQ(dla::aligned_ld(4097), 4128);
  EXPECT_EQ(dla::aligned_ld(4128), 4128);
}

// The look-ahead's SM share for its bulk update (potrf_blocking.cpp): a
// partition in the driver's 8-SM steps that leaves the critical path a
// quarter of the SMs below 6144, where that was measured to pay, all SMs
// from 6144; one share for every n, so a process makes one partition.
TEST(CholeskyHost, SideSmsRule) {
  if (std::getenv("DLA_POTRF_SIDE_SMS")) GTEST_SKIP() << "DLA_POTRF_SIDE_SMS overrides the rule";
  for (bool tc : {true, false}) {
    for (index_t n : {index_t(300), index_t(2048), index_t(4096), index_t(5000), index_t(6143)})
      EXPECT_EQ(dla::cuda::potrf_side_sms(n, tc, 132), 96) << "n=" << n << " tensor cores " << tc;
    for (index_t n : {index_t(6144), index_t(8192), index_t(16384)})
      EXPECT_EQ(dla::cuda::potrf_side_sms(n, tc, 132), 0) << "n=" << n << " tensor cores " << tc;
  }
  EXPECT_EQ(dla::cuda::potrf_side_sms(4096, true, 16), 0);  // too few SMs to split
  const index_t s = dla::cuda::potrf_side_sms(4096, true, 78);
  EXPECT_EQ(s % 8, 0);
  EXPECT_GT(s, 0);
  EXPECT_LT(s, 78);
}

// The depth of the bulk update (potrf_blocking.cpp): panels applied at once,
// growing with n; from 6144 three with tensor-core updates (session 22).
TEST(CholeskyHost, DepthRule) {
  if (std::getenv("DLA_POTRF_DEPTH")) GTEST_SKIP() << "DLA_POTRF_DEPTH overrides the rule";
  const std::vector<std::pair<index_t, index_t>> tensor = {
      {2048, 1}, {4096, 2}, {5000, 2}, {6143, 2}, {6144, 3}, {8191, 3}, {8192, 4},
      {10239, 4}, {10240, 6}, {16383, 6}, {16384, 10}};
  for (auto [n, d] : tensor) EXPECT_EQ(dla::cuda::potrf_update_depth(n, true), d) << "n=" << n;
  const std::vector<std::pair<index_t, index_t>> cuda_cores = {
      {2048, 1}, {4096, 2}, {6144, 2}, {8192, 3}, {16384, 3}};
  for (auto [n, d] : cuda_cores) EXPECT_EQ(dla::cuda::potrf_update_depth(n, false), d) << "n=" << n;
}

// The look-ahead's group sizes (potrf_blocking.cpp, potrf_group_depth):
// depth + 2 panels (below 6144 and from 12288) or depth + 1 (between) while
// the trailing matrix is larger than 2600, for spotrf on the tensor cores;
// the rule's depth otherwise.
TEST(CholeskyHost, GroupDepthRule) {
  for (const char* v : {"DLA_POTRF_EARLY_GROUPS", "DLA_POTRF_DEPTH", "DLA_POTRF_EARLY_EXTRA",
                        "DLA_POTRF_EARLY_TRAILING", "DLA_POTRF_FIRST_DEPTH", "DLA_POTRF_LATE_DEPTH",
                        "DLA_POTRF_LATE_TRAILING"})
    if (std::getenv(v)) GTEST_SKIP() << v << " overrides the rule";
  EXPECT_EQ(dla::cuda::potrf_early_groups_trailing(), dla::cuda::kPotrfEarlyGroupsTrailing);
  // The groups of panels (nb = 128) from column 0, as the look-ahead walks them.
  auto groups = [](index_t n, index_t depth, bool single_tc) {
    std::vector<index_t> g;
    for (index_t col = 0; col < n && g.size() < 6; ) {
      const index_t d = dla::cuda::potrf_group_depth(n, col, depth, single_tc);
      g.push_back(d);
      col += d * 128;
    }
    return g;
  };
  EXPECT_EQ(groups(4096, 2, true), (std::vector<index_t>{4, 4, 4, 2, 2, 2}));  // 3584, 3072 > 2600
  EXPECT_EQ(groups(3000, 1, true), (std::vector<index_t>{3, 3, 1, 1, 1, 1}));  // 2616 > 2600
  EXPECT_EQ(groups(6143, 2, true), (std::vector<index_t>{4, 4, 4, 4, 4, 4}));
  EXPECT_EQ(groups(6144, 3, true), (std::vector<index_t>{4, 4, 4, 4, 4, 4}));  // all SMs: + 1
  EXPECT_EQ(groups(8192, 4, true), (std::vector<index_t>{5, 5, 5, 5, 5, 5}));
  EXPECT_EQ(groups(12287, 6, true), (std::vector<index_t>{7, 7, 7, 7, 7, 7}));
  EXPECT_EQ(groups(12288, 6, true), (std::vector<index_t>{8, 8, 8, 8, 8, 8}));
  EXPECT_EQ(groups(16384, 10, true), (std::vector<index_t>{12, 12, 12, 12, 12, 12}));
  // The late groups (from 10240, spotrf on the tensor cores): at most 2 panels
  // once the trailing order is at most 4000, the whole walk.
  auto all_groups = [](index_t n, index_t depth, bool single_tc) {
    std::vector<index_t> g;
    for (index_t col = 0; col < n; col += g.back() * 128)
      g.push_back(dla::cuda::potrf_group_depth(n, col, depth, single_tc));
    return g;
  };
  auto runs = [](std::vector<std::pair<index_t, int>> rl) {
    std::vector<index_t> g;
    for (auto [d, k] : rl) g.insert(g.end(), std::size_t(k), d);
    return g;
  };
  // 16384: 9 groups of 12 (to column 13824, trailing 2560), then 10 of 2.
  EXPECT_EQ(all_groups(16384, 10, true), runs({{12, 9}, {2, 10}}));
  // 12288: 9 groups of 8 (to 9216, trailing 3072), then 12 of 2.
  EXPECT_EQ(all_groups(12288, 6, true), runs({{8, 9}, {2, 12}}));
  // 10240 (depth 6 + 1): 7 groups of 7 (to 6272, trailing 3968), then 16 of 2.
  EXPECT_EQ(all_groups(10240, 6, true), runs({{7, 7}, {2, 16}}));
  // Below 10240 and for dpotrf: no cap (8192: groups of 5 to 5760, trailing
  // 2432, then of 4).
  EXPECT_EQ(all_groups(8192, 4, true), runs({{5, 9}, {4, 5}}));
  EXPECT_EQ(all_groups(16384, 10, false), runs({{10, 13}}));
  EXPECT_EQ(groups(6144, 3, false), (std::vector<index_t>{3, 3, 3, 3, 3, 3}));
  EXPECT_EQ(groups(2600, 1, true), (std::vector<index_t>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(groups(4096, 2, false), (std::vector<index_t>{2, 2, 2, 2, 2, 2}));  // dpotrf, CUDA cores
}

// Where spotrf's look-ahead splits each next trapezoid in two halves of k,
// the first on the side stream (potrf_blocking.cpp, potrf_trap_half):
// spotrf on the tensor cores below 4608 (session 51: faster at 3000 and
// 4096, slower from 5000); never otherwise.
TEST(CholeskyHost, TrapHalfRule) {
  if (std::getenv("DLA_POTRF_TRAP_HALF")) GTEST_SKIP() << "DLA_POTRF_TRAP_HALF overrides the rule";
  for (index_t n : {1024, 3000, 4096, 4607})
    EXPECT_TRUE(dla::cuda::potrf_trap_half(n, true)) << "n=" << n;
  for (index_t n : {4608, 5000, 8192, 16384})
    EXPECT_FALSE(dla::cuda::potrf_trap_half(n, true)) << "n=" << n;
  for (index_t n : {1024, 4096, 8192})
    EXPECT_FALSE(dla::cuda::potrf_trap_half(n, false)) << "n=" << n << " (dpotrf, CUDA cores)";
}

// How many of a halved group's panels go to the side stream: the larger
// half, and never the group's last (the critical stream applies at least
// that one).
TEST(CholeskyHost, TrapHalfPanelsRule) {
  if (std::getenv("DLA_POTRF_TRAP_HALF_PANELS")) GTEST_SKIP() << "DLA_POTRF_TRAP_HALF_PANELS overrides the rule";
  EXPECT_EQ(dla::cuda::potrf_trap_half_panels(2), 1);
  EXPECT_EQ(dla::cuda::potrf_trap_half_panels(3), 2);
  EXPECT_EQ(dla::cuda::potrf_trap_half_panels(4), 2);
  EXPECT_EQ(dla::cuda::potrf_trap_half_panels(6), 3);
}

// The tuning variables reach the rules (solvers/src/env_knob.hpp): run by
// the ctest entry cholesky_test.blocking_knob_overrides with
// DLA_POTRF_TRAP_HALF_PANELS=3 DLA_POTRF_EARLY_EXTRA=4
// DLA_POTRF_EARLY_TRAILING=2000; skipped without them.
TEST(CholeskyHost, KnobOverrides) {
  const char* hp = std::getenv("DLA_POTRF_TRAP_HALF_PANELS");
  const char* extra = std::getenv("DLA_POTRF_EARLY_EXTRA");
  const char* trailing = std::getenv("DLA_POTRF_EARLY_TRAILING");
  if (!hp || !extra || !trailing || std::string(hp) != "3" || std::string(extra) != "4" ||
      std::string(trailing) != "2000" || std::getenv("DLA_POTRF_EARLY_GROUPS") ||
      std::getenv("DLA_POTRF_DEPTH"))
    GTEST_SKIP() << "runs under the knob_overrides ctest entry's variables only";
  EXPECT_EQ(dla::cuda::potrf_trap_half_panels(4), 3);
  EXPECT_EQ(dla::cuda::potrf_trap_half_panels(6), 3);
  EXPECT_EQ(dla::cuda::potrf_trap_half_panels(3), 2);  // at most all but the last
  EXPECT_EQ(dla::cuda::potrf_trap_half_panels(2), 1);
  EXPECT_EQ(dla::cuda::potrf_early_groups_trailing(), 2000);
  EXPECT_EQ(dla::cuda::potrf_group_depth(4096, 0, 2, true), 6);
  EXPECT_EQ(dla::cuda::potrf_group_depth(4096, 2048, 2, true), 6);  // trailing 2048 > 2000
  EXPECT_EQ(dla::cuda::potrf_group_depth(4096, 2176, 2, true), 2);  // trailing 1920
  EXPECT_EQ(dla::cuda::potrf_group_depth(4096, 0, 2, false), 2);   // dpotrf: no early groups
}

// Session 55's knobs reach the rules: run by the ctest entries
// cholesky_test.blocking_first_late_groups (DLA_POTRF_FIRST_DEPTH=2
// DLA_POTRF_LATE_DEPTH=1 DLA_POTRF_LATE_TRAILING=3000) and
// cholesky_test.blocking_leaf_tail (DLA_POTRF_DIAG_LEAF=0
// DLA_POTRF_LEAF_TAIL=2000); each part skips without its variables.
TEST(CholeskyHost, LargeOrderKnobs) {
  const auto is = [](const char* name, const char* value) {
    const char* e = std::getenv(name);
    return e && std::string(e) == value;
  };
  bool ran = false;
  if (is("DLA_POTRF_FIRST_DEPTH", "2") && is("DLA_POTRF_LATE_DEPTH", "1") &&
      is("DLA_POTRF_LATE_TRAILING", "3000") && !std::getenv("DLA_POTRF_DEPTH") &&
      !std::getenv("DLA_POTRF_EARLY_GROUPS") && !std::getenv("DLA_POTRF_EARLY_EXTRA") &&
      !std::getenv("DLA_POTRF_EARLY_TRAILING")) {
    ran = true;
    EXPECT_EQ(dla::cuda::potrf_group_depth(8192, 0, 4, true), 2);     // the first group
    EXPECT_EQ(dla::cuda::potrf_group_depth(8192, 0, 4, false), 2);    // dpotrf too
    EXPECT_EQ(dla::cuda::potrf_group_depth(8192, 256, 4, true), 5);   // then the rule (+ 1)
    EXPECT_EQ(dla::cuda::potrf_group_depth(8192, 5191, 4, true), 5);  // trailing 3001
    EXPECT_EQ(dla::cuda::potrf_group_depth(8192, 5192, 4, true), 1);  // trailing 3000
    EXPECT_EQ(dla::cuda::potrf_group_depth(16384, 16000, 10, true), 1);
    EXPECT_EQ(dla::cuda::potrf_group_depth(2048, 128, 1, true), 1);   // a cap, never deeper
  }
  if (is("DLA_POTRF_DIAG_LEAF", "0") && is("DLA_POTRF_LEAF_TAIL", "2000")) {
    ran = true;
    EXPECT_FALSE(dla::cuda::potrf_leaf_diag(4097));
    EXPECT_EQ(dla::cuda::potrf_leaf_tail(4097), 2000);
    EXPECT_EQ(dla::cuda::potrf_leaf_tail(16384), 2000);
  }
  if (!ran) GTEST_SKIP() << "runs under the first_late_groups or leaf_tail ctest entry's variables only";
}

// Which diagonal kernel spotrf takes (potrf_blocking.cpp, potrf_leaf_diag):
// the leaf kernel up to 12288, where it was measured faster, the tile kernel
// above.
TEST(CholeskyHost, LeafDiagRule) {
  if (std::getenv("DLA_POTRF_DIAG_LEAF")) GTEST_SKIP() << "DLA_POTRF_DIAG_LEAF overrides the rule";
  for (index_t n : {index_t(1), index_t(1000), index_t(4096), index_t(8192), index_t(12288)})
    EXPECT_TRUE(dla::cuda::potrf_leaf_diag(n)) << "n=" << n;
  for (index_t n : {index_t(12289), index_t(16384), index_t(40000)})
    EXPECT_FALSE(dla::cuda::potrf_leaf_diag(n)) << "n=" << n;
  // Above 12288 the leaf kernel takes the last 5000 columns (potrf_leaf_tail).
  if (!std::getenv("DLA_POTRF_LEAF_TAIL")) {
    EXPECT_EQ(dla::cuda::potrf_leaf_tail(4096), 0);  // the leaf kernel at every step already
    EXPECT_EQ(dla::cuda::potrf_leaf_tail(12288), 0);
    EXPECT_EQ(dla::cuda::potrf_leaf_tail(12289), 5000);
    EXPECT_EQ(dla::cuda::potrf_leaf_tail(16384), 5000);
  }
}

TEST(CholeskyHost, RestSplitRule) {
  if (std::getenv("DLA_POTRF_REST_SPLIT") || std::getenv("DLA_POTRF_SIDE_SMS"))
    GTEST_SKIP() << "DLA_POTRF_REST_SPLIT or DLA_POTRF_SIDE_SMS overrides the rules";
  EXPECT_TRUE(dla::cuda::potrf_rest_split(true));   // the bulk update on all SMs
  EXPECT_FALSE(dla::cuda::potrf_rest_split(false));  // on a green-context partition
  // Which one a size gets: potrf_side_sms (0 = all SMs) on the H200's 132 SMs.
  EXPECT_FALSE(dla::cuda::potrf_rest_split(dla::cuda::potrf_side_sms(6143, true, 132) == 0));
  EXPECT_TRUE(dla::cuda::potrf_rest_split(dla::cuda::potrf_side_sms(6144, true, 132) == 0));
}

// The critical-path update's tiles go on clusters of 4 CTAs while the update
// has at most SMs / 2 tiles on or below the diagonal (session 40).
TEST(CholeskyHost, CritClusterRule) {
  if (std::getenv("DLA_POTRF_CRIT_CLUSTER") || std::getenv("DLA_POTRF_CRIT_CLUSTER_TILES"))
    GTEST_SKIP() << "DLA_POTRF_CRIT_CLUSTER(_TILES) override the rule";
  EXPECT_EQ(dla::cuda::potrf_crit_cluster(1, 132), 4);
  EXPECT_EQ(dla::cuda::potrf_crit_cluster(66, 132), 4);
  EXPECT_EQ(dla::cuda::potrf_crit_cluster(67, 132), 0);
  EXPECT_EQ(dla::cuda::potrf_crit_cluster(111, 132), 0);  // 4096's first next-column updates
  EXPECT_EQ(dla::cuda::potrf_crit_cluster(39, 78), 4);
  EXPECT_EQ(dla::cuda::potrf_crit_cluster(40, 78), 0);
}

// ---- GPU -------------------------------------------------------------------

// Which blocking rule a factorization takes (potrf_tensor_core_updates):
// spotrf by the solvers' FP32 mode, dpotrf by the DGEMM kernels (FP64 tensor
// cores from compute capability 9.0, the CUDA cores with DLA_DGEMM=simt).
TEST(CholeskyDevice, TensorCoreUpdatesRule) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  const dla::cuda::Fp32Gemm before = dla::cuda::solver_fp32_gemm();
  for (auto m : {dla::cuda::Fp32Gemm::Native, dla::cuda::Fp32Gemm::Tf32x3}) {
    dla::cuda::set_solver_fp32_gemm(m);
    EXPECT_EQ(dla::cuda::potrf_tensor_core_updates(true), m == dla::cuda::Fp32Gemm::Tf32x3);
  }
  dla::cuda::set_solver_fp32_gemm(before);
  {
    dla::test::ScopedEnv env("DLA_DGEMM", "");
    EXPECT_EQ(dla::cuda::potrf_tensor_core_updates(false), major >= 9);
  }
  dla::test::ScopedEnv env("DLA_DGEMM", "simt");
  EXPECT_FALSE(dla::cuda::potrf_tensor_core_updates(false));
#endif
}

TEST(CholeskyDevice, FactorAndSolveMatchHost) {
  DLA_REQUIRE_GPU();
  const dla::Context gpu(dla::Backend::Cuda), host = dla::Context::host();
  std::uint64_t seed = 1000;
  for (Uplo u : {Uplo::Lower, Uplo::Upper})
    for (index_t n : {index_t(1), index_t(2), index_t(17), index_t(127), index_t(128),
                      index_t(129), index_t(1000), index_t(3001)}) {
      const auto Fd = check_factor_and_solve<float>(gpu, n, u, n > 1000 ? 7 : 3, seed);
      if (n <= 1000) {
        const auto Fh = check_factor_and_solve<float>(host, n, u, 3, seed);
        EXPECT_LE((Fd - Fh).norm() / Fh.norm(), 200 * std::sqrt(double(n)) * eps<float>())
            << "n=" << n;
      }
      check_factor_and_solve<double>(gpu, n, u, 2, seed + 1);
      seed += 2;
    }
  check_factor_and_solve<float>(gpu, 2000, Uplo::Lower, 1000, 55);  // many right-hand sides
}

TEST(CholeskyDevice, LargeSizes) {
  DLA_REQUIRE_GPU();
  const dla::Context gpu(dla::Backend::Cuda);
  for (index_t n : {index_t(4097), index_t(8192)}) {
    check_factor_and_solve<float>(gpu, n, Uplo::Lower, 4, 3000 + std::uint64_t(n));
    check_factor_and_solve<float>(gpu, n, Uplo::Upper, 1, 4000 + std::uint64_t(n));
  }
  check_factor_and_solve<double>(gpu, 4097, Uplo::Lower, 2, 5000);
  // Block size 256 with a last trailing matrix of 148 < 256 rows (5 sub-tiles
  // of the diagonal-block update, a partial block).
  check_factor_and_solve<float>(gpu, 4500, Uplo::Lower, 2, 6000);
  check_factor_and_solve<float>(gpu, 4500, Uplo::Upper, 2, 6001);
}

TEST(CholeskyDevice, StopsAtKnownMinor) {
  DLA_REQUIRE_GPU();
  const dla::Context gpu(dla::Backend::Cuda);
  for (Uplo u : {Uplo::Lower, Uplo::Upper})
    for (index_t k : {index_t(0), index_t(5), index_t(63), index_t(64), index_t(200),
                      index_t(700)}) {
      expect_minor<float>(gpu, 1100, k, u);
      expect_minor<double>(gpu, 900, std::min<index_t>(k, 899), u);
    }
  // Large n with the failure deep inside (block sizes 256).
  expect_minor<float>(gpu, 4500, 4321, Uplo::Lower);
  // Inside the third of the deeper early groups (potrf_group_depth: 4 panels
  // each at 4500, columns 1024..1535), its bulk update still deferred.
  expect_minor<float>(gpu, 4500, 1300, Uplo::Upper);
}

// Orders <= 256 are one potrf_diag_kernel launch: partial and full 32-wide
// sub-panels, failing minors on sub-panel edges and deep inside, both uplo.
TEST(CholeskyDevice, DiagonalBlockKernel) {
  DLA_REQUIRE_GPU();
  const dla::Context gpu(dla::Backend::Cuda);
  std::uint64_t seed = 7000;
  for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
    for (index_t n : {index_t(31), index_t(32), index_t(33), index_t(100), index_t(255),
                      index_t(256)}) {
      check_factor_and_solve<float>(gpu, n, u, 3, seed++);
      check_factor_and_solve<double>(gpu, n, u, 2, seed++);
    }
    for (index_t k : {index_t(0), index_t(31), index_t(32), index_t(200), index_t(255)}) {
      expect_minor<float>(gpu, 256, k, u);
      expect_minor<double>(gpu, 256, k, u);
    }
    // Orders <= 128 are the tile kernel, float and double (4 x 4 register
    // tiles, 4 columns per barrier pair, warps retiring by tile column). The
    // entry cholesky_test.blocking_leaf_diag_kernel reruns this with the
    // opt-in leaf kernel for float (16-column leaves, each factored with its
    // rows below by up to 7 warps at once),
    // cholesky_test.blocking_split_diag_kernel with the
    // opt-in split kernel for float orders 65..128 (two warp factorizations
    // of 64 around a blocked solve and an update; A22 padded with an
    // identity below 128), cholesky_test.blocking_row_diag_kernel with the
    // row kernel (a thread per row and one barrier per column, up to
    // 128 in float and 64 in double). Odd and even orders, orders that leave
    // a partial last tile or a padded A22, failing minors at every position
    // inside a 4-column tile column, next to the 16-column leaf, 32-column
    // sub-panel and warp boundaries, and on both sides of the split at 64.
    for (index_t n : {index_t(1), index_t(2), index_t(3), index_t(16), index_t(17), index_t(64),
                      index_t(65), index_t(96), index_t(97), index_t(113), index_t(127),
                      index_t(128)}) {
      check_factor_and_solve<float>(gpu, n, u, 2, seed++);
      check_factor_and_solve<double>(gpu, n, u, 2, seed++);
      for (index_t k : {index_t(0), index_t(1), index_t(2), index_t(15), index_t(16),
                        index_t(17), index_t(33), index_t(62), index_t(63), index_t(64),
                        index_t(65), index_t(95), index_t(96), index_t(111), index_t(112),
                        index_t(126), index_t(127)}) {
        if (k >= n) continue;
        expect_minor<float>(gpu, n, k, u);
        expect_minor<double>(gpu, n, k, u);
      }
    }
  }
}

}  // namespace
