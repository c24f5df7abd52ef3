// Cholesky: factorization residual ||A - L L^T|| / (n ||A|| eps) <= 50 and
// solve backward error ||A x - b|| / (||A|| ||x|| n eps) <= 50, both uplo, on
// the host (CI) and the device (skips without a GPU), a matrix that stops
// being positive definite at a known minor, bad input; on the GPU also the
// low-level dla::cuda::spotrf (device info, untouched other triangle, odd lda)
// and a comparison with cusolverDnSpotrf.
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

namespace {

using dla::index_t;
using dla::Uplo;
using MatD = Eigen::MatrixXd;

// Symmetric, entries in [-1, 1), diagonal shifted by 3 sqrt(n) + 1: positive
// definite with condition number around 3, every entry significant. O(n^2).
MatD random_spd(index_t n, std::uint64_t seed) {
  MatD A = dla::test::random_matrix<double>(n, n, seed);
  MatD S = 0.5 * (A + A.transpose());
  S.diagonal().array() += 3.0 * std::sqrt(double(n)) + 1.0;
  return S;
}

// The leading k x k block stays positive definite, the minor of order k + 1
// does not: A(k, k) = a^T A_k^-1 a - 1 makes the Schur complement -1.
MatD spd_failing_at(index_t n, index_t k, std::uint64_t seed) {
  MatD A = random_spd(n, seed);
  double s = 0;
  if (k > 0) {
    const Eigen::VectorXd a = A.block(k, 0, 1, k).transpose();
    s = a.dot(A.topLeftCorner(k, k).llt().solve(a));
  }
  A(k, k) = s - 1.0;
  return A;
}

// The uplo triangle of A in precision T; the other strict triangle poisoned.
template <class T>
dla::Matrix<T> only_triangle(const MatD& A, Uplo uplo) {
  dla::Matrix<T> out = A.cast<T>();
  for (index_t j = 0; j < A.cols(); ++j)
    for (index_t i = 0; i < A.rows(); ++i)
      if (uplo == Uplo::Lower ? i < j : i > j) out(i, j) = std::numeric_limits<T>::quiet_NaN();
  return out;
}

template <class T>
constexpr double eps() { return double(std::numeric_limits<T>::epsilon()); }

// ||A - F F^T|| / (n ||A|| eps) with F = L (Lower) or U^T (Upper), in double:
// exact for n <= 1500, else probed with 8 random vectors (O(n^2)).
template <class T>
double factor_residual(const MatD& A, const dla::Matrix<T>& factor, Uplo uplo) {
  const index_t n = A.rows();
  const MatD F = uplo == Uplo::Lower ? MatD(factor.template cast<double>())
                                     : MatD(factor.template cast<double>().transpose());
  if (F.array().isNaN().any()) return std::numeric_limits<double>::infinity();
  if (n <= 1500) return (A - F * F.transpose()).norm() / (double(n) * A.norm() * eps<T>());
  const MatD V = dla::test::random_matrix<double>(n, 8, 99);
  const MatD R = A * V - F * (F.transpose() * V);
  return R.norm() / (double(n) * A.norm() * V.norm() / std::sqrt(double(n)) * eps<T>());
}

// max over columns of ||A x - b|| / (||A|| ||x|| n eps).
template <class T>
double backward_error(const MatD& A, const dla::Matrix<T>& X, const dla::Matrix<T>& B) {
  const MatD Xd = X.template cast<double>();
  if (Xd.array().isNaN().any()) return std::numeric_limits<double>::infinity();
  const MatD R = A * Xd - B.template cast<double>();
  double worst = 0;
  for (index_t j = 0; j < X.cols(); ++j)
    worst = std::max(worst, R.col(j).norm() /
                                (A.norm() * Xd.col(j).norm() * double(A.rows()) * eps<T>()));
  return worst;
}

template <class T>
dla::Matrix<T> check_factor_and_solve(const dla::Context& ctx, index_t n, Uplo uplo,
                                      index_t nrhs, std::uint64_t seed) {
  const MatD A = random_spd(n, seed);
  const dla::Matrix<T> As = only_triangle<T>(A, uplo);
  const dla::Cholesky<T> c = dla::cholesky_factor<T>(ctx, As, uplo);
  EXPECT_EQ(c.uplo, uplo);
  EXPECT_EQ(c.info, 0);
  // The other triangle is zero.
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i)
      if (uplo == Uplo::Lower ? i < j : i > j) {
        if (c.factor(i, j) != T(0)) { ADD_FAILURE() << "nonzero outside triangle"; j = n; break; }
      }
  // Residual computed against A rounded to T (what the routine saw).
  const MatD Ar = A.cast<T>().template cast<double>();
  EXPECT_LE(factor_residual<T>(Ar, c.factor, uplo), 50.0) << "n=" << n << " uplo=" << char(uplo);
  const dla::Matrix<T> B = dla::test::random_matrix<T>(n, nrhs, seed + 7);
  const dla::Matrix<T> X = dla::cholesky_solve<T>(ctx, c, B);
  EXPECT_LE(backward_error<T>(Ar, X, B), 50.0) << "n=" << n << " nrhs=" << nrhs;
  return c.factor;
}

template <class T>
void expect_minor(const dla::Context& ctx, index_t n, index_t k, Uplo uplo) {
  const MatD A = spd_failing_at(n, k, 500 + std::uint64_t(k));
  try {
    dla::cholesky_factor<T>(ctx, only_triangle<T>(A, uplo), uplo);
    ADD_FAILURE() << "no NotPositiveDefinite for n=" << n << " k=" << k;
  } catch (const dla::NotPositiveDefinite& e) {
    EXPECT_EQ(e.minor(), k + 1) << "n=" << n;
    EXPECT_NE(std::string(e.what()).find(std::to_string(k + 1)), std::string::npos) << e.what();
  }
}

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
  EXPECT_EQ(dla::cuda::potrf_pad_ld(1), 32);
  EXPECT_EQ(dla::cuda::potrf_pad_ld(4097), 4128);
  EXPECT_EQ(dla::cuda::potrf_pad_ld(4128), 4128);
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
  if (std::getenv("DLA_POTRF_EARLY_GROUPS") || std::getenv("DLA_POTRF_DEPTH"))
    GTEST_SKIP() << "DLA_POTRF_EARLY_GROUPS / DLA_POTRF_DEPTH override the rule";
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
  EXPECT_EQ(groups(6144, 3, false), (std::vector<index_t>{3, 3, 3, 3, 3, 3}));
  EXPECT_EQ(groups(2600, 1, true), (std::vector<index_t>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(groups(4096, 2, false), (std::vector<index_t>{2, 2, 2, 2, 2, 2}));  // dpotrf, CUDA cores
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

#if DLA_HAVE_CUDA
// Low level: device info, odd lda, the other triangle and the padding untouched.
// `ws`: no workspace (nullptr, 0 bytes), a workspace of spotrf_buffer_size
// bytes (Exact), or 4 bytes fewer (Short: spotrf must factor in place). The
// workspace is poisoned with 64 guard bytes after it; spotrf must not write
// past the bytes it was given, and it writes into them only where it takes
// the aligned copy (expected: A misaligned, potrf_pads(n) by its rule or
// DLA_POTRF_PAD, an Exact workspace), which the copy's first entry, L(0, 0)
// again after the copy back, shows. `offset` elements before A's first entry
// (sentinels too) misalign A's address while lda % 4 == 0.
enum class Ws { None, Exact, Short };

template <class T>
void low_level_case(index_t n, index_t fail_k, Uplo uplo, Ws ws_mode = Ws::None,
                    index_t offset = 0) {
  const MatD A = fail_k < 0 ? random_spd(n, 42) : spd_failing_at(n, fail_k, 43);
  const index_t lda = n + 3;
  const T sentinel = T(12345.5);
  std::vector<T> h(std::size_t(offset + lda * n), sentinel);
  T* ha = h.data() + offset;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i)
      if (uplo == Uplo::Lower ? i >= j : i <= j) ha[std::size_t(i + j * lda)] = T(A(i, j));
  dla::Context ctx(dla::Backend::Cuda);
  dla::DeviceBuffer<T> d(index_t(h.size()));
  dla::DeviceBuffer<int> info(1);
  d.upload(h.data(), index_t(h.size()), ctx.stream());
  T* da = d.data() + offset;
  const std::string where = "n=" + std::to_string(n) + " lda=" + std::to_string(lda) +
                            " offset=" + std::to_string(offset) +
                            (ws_mode == Ws::Exact ? " exact workspace"
                             : ws_mode == Ws::Short ? " short workspace" : "");
  int r;
  if constexpr (std::is_same_v<T, float>) {
    const std::size_t need = dla::cuda::spotrf_buffer_size(n, da, lda);
    const char* env = std::getenv("DLA_POTRF_PAD");
    const bool misaligned = lda % 4 != 0 || offset % 4 != 0;
    const bool pads = env ? env[0] == '1' : n >= dla::cuda::kPotrfPadMin;
    EXPECT_EQ(need > 0, misaligned && pads) << where;
    const std::size_t bytes = ws_mode == Ws::Exact ? need
                              : ws_mode == Ws::Short && need >= 4 ? need - 4 : 0;
    const bool expect_copy = ws_mode == Ws::Exact && need > 0;
    constexpr std::size_t kGuard = 64;
    dla::DeviceBuffer<unsigned char> work(index_t(bytes + kGuard));
    const auto cs = reinterpret_cast<cudaStream_t>(ctx.stream());
    DLA_CUDA_CHECK(cudaMemsetAsync(work.data(), 0xff, bytes + kGuard, cs));
    r = dla::cuda::spotrf(ctx.stream(), uplo, n, da, lda, info.data(),
                          ws_mode == Ws::None ? nullptr : work.data(), bytes);
    std::vector<unsigned char> hw(bytes + kGuard);
    work.download(hw.data(), index_t(hw.size()), ctx.stream());
    ctx.synchronize();
    bool guard_ok = true;
    for (std::size_t b = bytes; b < hw.size(); ++b) guard_ok = guard_ok && hw[b] == 0xff;
    EXPECT_TRUE(guard_ok) << where << ": spotrf wrote past the workspace it was given";
    float w0 = 0;
    std::memcpy(&w0, hw.data(), sizeof w0);
    if (expect_copy) {
      float a0 = 0;
      DLA_CUDA_CHECK(cudaMemcpy(&a0, da, sizeof a0, cudaMemcpyDeviceToHost));
      EXPECT_EQ(w0, a0) << where << ": the aligned copy was not taken";
    } else {
      bool untouched = true;
      for (std::size_t b = 0; b < bytes; ++b) untouched = untouched && hw[b] == 0xff;
      EXPECT_TRUE(untouched) << where << ": the workspace was written without the aligned copy";
    }
  } else {
    r = dla::cuda::dpotrf(ctx.stream(), uplo, n, da, lda, info.data(), nullptr);
  }
  ASSERT_EQ(r, 0);
  int hinfo = -7;
  info.download(&hinfo, 1, ctx.stream());
  d.download(h.data(), index_t(h.size()), ctx.stream());
  ctx.synchronize();
  EXPECT_EQ(hinfo, fail_k < 0 ? 0 : int(fail_k + 1)) << where;
  bool untouched = true;
  for (index_t e = 0; e < offset; ++e) untouched = untouched && h[std::size_t(e)] == sentinel;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < lda; ++i) {
      const bool stored = i < n && (uplo == Uplo::Lower ? i >= j : i <= j);
      if (!stored && ha[std::size_t(i + j * lda)] != sentinel) untouched = false;
    }
  EXPECT_TRUE(untouched) << where << ": the other triangle or the padding was written";
  if (fail_k < 0) {
    dla::Matrix<T> F = dla::Matrix<T>::Zero(n, n);
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i)
        if (uplo == Uplo::Lower ? i >= j : i <= j) F(i, j) = ha[std::size_t(i + j * lda)];
    EXPECT_LE(factor_residual<T>(A.cast<T>().template cast<double>(), F, uplo), 50.0) << where;
  }
}

TEST(CholeskyDevice, LowLevelInfoAndUntouchedTriangle) {
  DLA_REQUIRE_GPU();
  for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
    // lda = n + 3: 1501 and 2045 give lda % 4 == 0, where the look-ahead's
    // critical-path updates run potrf_update_kernel on partial vectors and
    // tiles (the other orders take the triangular GEMM).
    for (index_t n : {index_t(1), index_t(65), index_t(300), index_t(1500), index_t(1501),
                      index_t(2045)})
      low_level_case<float>(n, -1, u);
    low_level_case<float>(2045, 1300, u);
    low_level_case<float>(1500, 777, u);
    low_level_case<float>(1500, 0, u);
    low_level_case<double>(700, -1, u);
    low_level_case<double>(700, 129, u);
    // With a workspace: misaligned lda (1030 + 3, 1500 + 3) or address
    // (offset 1, lda 1104) factor in the aligned copy, failing minors
    // included; an aligned A (lda 1504), n < kPotrfPadMin (1, 65, 300) and a
    // workspace 4 bytes short factor in place. The variant
    // cholesky_test.blocking_pad_all (DLA_POTRF_PAD=1) copies at every order.
    for (index_t n : {index_t(1), index_t(65), index_t(300), index_t(1030), index_t(1500),
                      index_t(1501)})
      low_level_case<float>(n, -1, u, Ws::Exact);
    low_level_case<float>(1500, 777, u, Ws::Exact);
    low_level_case<float>(300, 100, u, Ws::Exact);
    low_level_case<float>(1101, -1, u, Ws::Exact, 1);
    low_level_case<float>(1, -1, u, Ws::Exact, 1);  // in place; copied under pad_all
    low_level_case<float>(65, -1, u, Ws::Exact, 1);
    low_level_case<float>(1500, -1, u, Ws::Short);
  }
  dla::Context ctx(dla::Backend::Cuda);
  dla::DeviceBuffer<int> info(1);
  dla::DeviceBuffer<float> a(16);
  EXPECT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, -1, a.data(), 4, info.data(), nullptr),
            -2);
  EXPECT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, 4, a.data(), 3, info.data(), nullptr),
            -4);
  EXPECT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, 4, a.data(), 4, nullptr, nullptr), -5);
  EXPECT_EQ(dla::cuda::spotrs(ctx.stream(), Uplo::Lower, 4, 2, a.data(), 4, a.data(), 3), -7);
  EXPECT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, 0, nullptr, 1, info.data(), nullptr), 0);
  int hinfo = -1;
  info.download(&hinfo, 1, ctx.stream());
  ctx.synchronize();
  EXPECT_EQ(hinfo, 0);
}

// Calls from one host thread on two streams, queued back to back without a
// synchronisation in between: they share the look-ahead's internal streams,
// events and progress words (potrf.cu, LookaheadResources), so a later call
// must neither reset a word an earlier call's side stream still waits for
// (the gate of the bulk update, session 31) nor overwrite its data. Each
// factor is checked; a protocol that lost a wake-up would hang here (the
// ctest timeout).
TEST(CholeskyDevice, BackToBackOnTwoStreams) {
  DLA_REQUIRE_GPU();
  const std::vector<index_t> sizes = {3000, 1100, 2500, 600, 3000};
  std::vector<MatD> A;
  for (std::size_t c = 0; c < sizes.size(); ++c) A.push_back(random_spd(sizes[c], 90 + c));
  dla::Context ctx[2] = {dla::Context(dla::Backend::Cuda), dla::Context(dla::Backend::Cuda)};
  std::vector<dla::DeviceBuffer<float>> d;
  std::vector<std::vector<float>> h(sizes.size());
  dla::DeviceBuffer<int> info(index_t(sizes.size()));
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    const index_t n = sizes[c];
    h[c].resize(std::size_t(n * n));
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i) h[c][std::size_t(i + j * n)] = float(A[c](i, j));
    d.emplace_back(n * n);
    d[c].upload(h[c].data(), n * n, ctx[c % 2].stream());
  }
  for (std::size_t c = 0; c < sizes.size(); ++c)
    ASSERT_EQ(dla::cuda::spotrf(ctx[c % 2].stream(), Uplo::Lower, sizes[c], d[c].data(), sizes[c],
                                info.data() + c, nullptr),
              0);
  std::vector<int> hinfo(sizes.size(), -7);
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    d[c].download(h[c].data(), sizes[c] * sizes[c], ctx[c % 2].stream());
    ctx[c % 2].synchronize();
  }
  info.download(hinfo.data(), index_t(sizes.size()), ctx[0].stream());
  ctx[0].synchronize();
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    const index_t n = sizes[c];
    EXPECT_EQ(hinfo[c], 0) << "call " << c << ", n=" << n;
    dla::Matrix<float> F = dla::Matrix<float>::Zero(n, n);
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j; i < n; ++i) F(i, j) = h[c][std::size_t(i + j * n)];
    EXPECT_LE(factor_residual<float>(A[c].cast<float>().template cast<double>(), F, Uplo::Lower),
              50.0)
        << "call " << c << ", n=" << n;
  }
}

// A NaN in the stored triangle fails the first pivot it reaches: on the
// diagonal at (p, p) -> info p + 1; off the diagonal at (p, q), q < p, it
// propagates along row p to the pivot p -> info p + 1 too.
template <class T>
int nan_info(index_t n, Uplo uplo, index_t p, index_t q) {
  MatD A = random_spd(n, 44);
  const index_t lda = n + 1;
  std::vector<T> h(std::size_t(lda * n), T(0));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) h[std::size_t(i + j * lda)] = T(A(i, j));
  const index_t r = uplo == Uplo::Lower ? p : q, c = uplo == Uplo::Lower ? q : p;
  h[std::size_t(r + c * lda)] = std::numeric_limits<T>::quiet_NaN();
  dla::Context ctx(dla::Backend::Cuda);
  dla::DeviceBuffer<T> d(index_t(h.size()));
  dla::DeviceBuffer<int> info(1);
  d.upload(h.data(), index_t(h.size()), ctx.stream());
  int rc;
  if constexpr (std::is_same_v<T, float>)
    rc = dla::cuda::spotrf(ctx.stream(), uplo, n, d.data(), lda, info.data(), nullptr);
  else
    rc = dla::cuda::dpotrf(ctx.stream(), uplo, n, d.data(), lda, info.data(), nullptr);
  EXPECT_EQ(rc, 0);
  int hinfo = -7;
  info.download(&hinfo, 1, ctx.stream());
  ctx.synchronize();
  return hinfo;
}

TEST(CholeskyDevice, NaNFailsAtItsPivot) {
  DLA_REQUIRE_GPU();
  for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
    EXPECT_EQ(nan_info<float>(100, u, 37, 37), 38);
    EXPECT_EQ(nan_info<float>(100, u, 40, 10), 41);   // same 64-block
    EXPECT_EQ(nan_info<float>(300, u, 200, 3), 201);  // through panel trsm and update
    EXPECT_EQ(nan_info<double>(300, u, 63, 0), 64);   // last pivot of a leaf
    EXPECT_EQ(nan_info<double>(1100, u, 1099, 1099), 1100);
  }
}

// A subnormal pivot is positive: the factorization goes on (info 0) with
// L(p, p) = sqrt(pivot). Diagonal matrices, so that pivot reaches the
// diagonal kernel unchanged; the float tile kernel's fast rsqrt flushes
// subnormals and must not be used for it. The 1 x 1 block, a 64 and a 128
// block, and a block column of the look-ahead.
TEST(CholeskyDevice, SubnormalPivot) {
  DLA_REQUIRE_GPU();
  const float tiny = 1e-39f;  // subnormal in float
  ASSERT_LT(tiny, std::numeric_limits<float>::min());
  ASSERT_GT(tiny, 0.0f);
  for (Uplo u : {Uplo::Lower, Uplo::Upper})
    for (auto [n, p] : {std::pair<index_t, index_t>{1, 0}, {60, 37}, {128, 127}, {1500, 700}}) {
      std::vector<float> h(std::size_t(n * n), 0.0f);
      for (index_t i = 0; i < n; ++i) h[std::size_t(i + i * n)] = 4.0f;
      h[std::size_t(p + p * n)] = tiny;
      dla::Context ctx(dla::Backend::Cuda);
      dla::DeviceBuffer<float> d(index_t(h.size()));
      dla::DeviceBuffer<int> info(1);
      d.upload(h.data(), index_t(h.size()), ctx.stream());
      ASSERT_EQ(dla::cuda::spotrf(ctx.stream(), u, n, d.data(), n, info.data(), nullptr), 0);
      int hinfo = -7;
      info.download(&hinfo, 1, ctx.stream());
      d.download(h.data(), index_t(h.size()), ctx.stream());
      ctx.synchronize();
      EXPECT_EQ(hinfo, 0) << "n=" << n;
      const float want = std::sqrt(tiny);
      EXPECT_NEAR(h[std::size_t(p + p * n)], want, 4e-7f * want) << "n=" << n << " p=" << p;
      for (index_t i = 0; i < n; ++i)
        if (i != p) EXPECT_EQ(h[std::size_t(i + i * n)], 2.0f) << "n=" << n << " i=" << i;
    }
}

// The single-launch diagonal block (n = 256) at the low level: info, untouched
// triangle and padding, NaN off the diagonal inside a later sub-panel.
TEST(CholeskyDevice, DiagonalBlockKernelLowLevel) {
  DLA_REQUIRE_GPU();
  for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
    low_level_case<float>(256, -1, u);
    low_level_case<float>(256, 200, u);
    low_level_case<double>(256, -1, u);
    low_level_case<double>(256, 200, u);
    EXPECT_EQ(nan_info<float>(256, u, 200, 100), 201);
    EXPECT_EQ(nan_info<double>(256, u, 255, 255), 256);
  }
}

// Same inputs through cusolverDnSpotrf: the factors agree.
TEST(CholeskyDevice, MatchesCusolver) {
  DLA_REQUIRE_GPU();
  dla::Context ctx(dla::Backend::Cuda);
  cusolverDnHandle_t h;
  ASSERT_EQ(cusolverDnCreate(&h), CUSOLVER_STATUS_SUCCESS);
  cusolverDnSetStream(h, reinterpret_cast<cudaStream_t>(ctx.stream()));
  for (index_t n : {index_t(129), index_t(1000), index_t(3001), index_t(4097)}) {
    const MatD A = random_spd(n, 900 + std::uint64_t(n));
    const dla::Matrix<float> Af = A.cast<float>();
    dla::DeviceMatrix<float> d1(Af, ctx.stream()), d2(Af, ctx.stream());
    dla::DeviceBuffer<int> i1(1), i2(1);
    ASSERT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, n, d1.data(), d1.ld(), i1.data(),
                                nullptr),
              0);
    int lwork = 0;
    cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, int(n), d2.data(), int(d2.ld()),
                                &lwork);
    dla::DeviceBuffer<float> work(std::max(lwork, 1));
    cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, int(n), d2.data(), int(d2.ld()), work.data(),
                     lwork, i2.data());
    int h1 = -1, h2 = -1;
    i1.download(&h1, 1, ctx.stream());
    i2.download(&h2, 1, ctx.stream());
    dla::Matrix<float> F1 = d1.to_host(ctx.stream()), F2 = d2.to_host(ctx.stream());
    ctx.synchronize();
    EXPECT_EQ(h1, 0);
    EXPECT_EQ(h2, 0);
    F1.triangularView<Eigen::StrictlyUpper>().setZero();
    F2.triangularView<Eigen::StrictlyUpper>().setZero();
    EXPECT_LE((F1 - F2).norm() / F2.norm(), 200 * std::sqrt(double(n)) * eps<float>())
        << "n=" << n;
  }
  cusolverDnDestroy(h);
}
#endif

}  // namespace
