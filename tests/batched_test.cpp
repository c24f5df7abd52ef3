// Batched solvers: host path always, device kernels when a GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dla/core/batch.hpp"
#include "dla/core/context.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/batched.hpp"
#include "dla/solvers/batched_cuda.hpp"
#include "test_util.hpp"

namespace {

using dla::Batch;
using dla::index_t;
using dla::Method;
using dla::test::Mat;

constexpr double kLimit = 50.0;

using dla::test::random_batch;
using dla::test::spd_batch;

template <class T>
double eps() { return double(std::numeric_limits<T>::epsilon()); }

// ||A x - b||_1 / (||A||_1 ||x||_1 n eps), per column, max over columns.
template <class T>
double backward_error(const Mat<T>& A, const Mat<T>& X, const Mat<T>& B) {
  const Mat<double> a = A.template cast<double>(), x = X.template cast<double>(),
                    b = B.template cast<double>();
  const double na = a.cwiseAbs().colwise().sum().maxCoeff();
  double worst = 0;
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    const double r = (a * x.col(c) - b.col(c)).cwiseAbs().sum();
    const double nx = x.col(c).cwiseAbs().sum();
    const double e = r / (na * nx * double(std::max<index_t>(A.rows(), 1)) * eps<T>());
    worst = std::isfinite(e) ? std::max(worst, e) : std::numeric_limits<double>::infinity();
  }
  return worst;
}

// ||P A - L U||_1 / (||A||_1 n eps) from LAPACK-style factors and pivots.
template <class T>
double factor_error(const Mat<T>& A, const Mat<T>& F, const std::int32_t* ipiv) {
  const index_t n = A.rows();
  Mat<double> pa = A.template cast<double>();
  for (index_t k = 0; k < n; ++k)
    if (ipiv[k] - 1 != k) pa.row(k).swap(pa.row(ipiv[k] - 1));
  const Mat<double> f = F.template cast<double>();
  Mat<double> L = f.template triangularView<Eigen::UnitLower>();
  Mat<double> U = f.template triangularView<Eigen::Upper>();
  const double na = A.template cast<double>().cwiseAbs().colwise().sum().maxCoeff();
  return (pa - L * U).cwiseAbs().colwise().sum().maxCoeff() / (na * double(n) * eps<T>());
}

template <class T>
class BatchedHost : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BatchedHost, Types);

const std::vector<index_t> kSizes = {1, 2, 3, 7, 8, 16, 31, 32, 33, 64, 100, 128, 129, 256};

// Host CI stays quick: many matrices only for small n.
index_t host_count(index_t n) { return n <= 16 ? 1000 : (n <= 64 ? 50 : 3); }

TYPED_TEST(BatchedHost, LuSolveBackwardErrorAllSizes) {
  using T = TypeParam;
  dla::Context ctx = dla::Context::host();
  for (index_t n : kSizes)
    for (index_t k : {index_t(1), index_t(4)}) {
      const index_t count = host_count(n);
      auto A = random_batch<T>(count, n, n, 11 + n);
      auto B = random_batch<T>(count, n, k, 13 + n);
      std::vector<std::int32_t> info;
      auto X = dla::solve_batched(ctx, A, B, Method::LU, &info);
      ASSERT_EQ(index_t(info.size()), count);
      for (index_t b = 0; b < count; ++b) {
        ASSERT_EQ(info[b], 0) << "n=" << n << " member " << b;
        ASSERT_LE(backward_error<T>(A[b], X[b], B[b]), kLimit) << "n=" << n << " member " << b;
      }
    }
}

TYPED_TEST(BatchedHost, CholeskyAndAutoSolveAllSizes) {
  using T = TypeParam;
  dla::Context ctx = dla::Context::host();
  for (index_t n : kSizes)
    for (Method m : {Method::Cholesky, Method::Auto}) {
      const index_t count = host_count(n);
      auto A = spd_batch<T>(count, n, 17 + n);
      auto B = random_batch<T>(count, n, 4, 19 + n);
      auto X = dla::solve_batched(ctx, A, B, m);  // throws on failure
      for (index_t b = 0; b < count; ++b)
        ASSERT_LE(backward_error<T>(A[b], X[b], B[b]), kLimit) << "n=" << n << " member " << b;
    }
}

TYPED_TEST(BatchedHost, LuFactorsAndPivots) {
  using T = TypeParam;
  dla::Context ctx = dla::Context::host();
  for (index_t n : kSizes) {
    const index_t count = std::min<index_t>(host_count(n), 20);
    auto A = random_batch<T>(count, n, n, 23 + n);
    auto lu = dla::lu_factor_batched(ctx, A);
    EXPECT_EQ(lu.backend, dla::Backend::Host);
    ASSERT_EQ(index_t(lu.ipiv.size()), count * n);
    for (index_t b = 0; b < count; ++b) {
      EXPECT_EQ(lu.info[b], 0);
      const std::int32_t* p = lu.ipiv.data() + b * n;
      for (index_t k = 0; k < n; ++k) ASSERT_TRUE(p[k] >= k + 1 && p[k] <= n) << p[k];
      ASSERT_LE(factor_error<T>(A[b], lu.factors[b], p), kLimit) << "n=" << n;
      // |L| <= 1 under partial pivoting
      Mat<T> f = lu.factors[b];
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j + 1; i < n; ++i) ASSERT_LE(std::abs(f(i, j)), T(1));
    }
  }
}

// Member `bad` gets column `col` zeroed: U(col+1, col+1) is exactly zero.
template <class T>
void make_singular(Batch<T>& A, index_t bad, index_t col) { A[bad].col(col).setZero(); }
// Member `bad` gets A(j,j) = -1 on an SPD matrix: the minor of order j+1 fails.
template <class T>
void make_not_spd(Batch<T>& A, index_t bad, index_t j) { A[bad](j, j) = T(-1); }

TYPED_TEST(BatchedHost, SingularMembersReportedOthersUnaffected) {
  using T = TypeParam;
  dla::Context ctx = dla::Context::host();
  for (index_t n : {index_t(3), index_t(16), index_t(33), index_t(100)}) {
    const index_t count = 40;
    auto A = random_batch<T>(count, n, n, 29 + n);
    auto B = random_batch<T>(count, n, 2, 31 + n);
    auto clean = dla::solve_batched(ctx, A, B, Method::LU);
    make_singular(A, 5, n - 1);
    make_singular(A, 17, n / 2);
    auto lu = dla::lu_factor_batched(ctx, A);
    std::vector<std::int32_t> info;
    auto X = dla::solve_batched(ctx, A, B, Method::LU, &info);
    for (index_t b = 0; b < count; ++b) {
      const std::int32_t want = b == 5 ? std::int32_t(n) : b == 17 ? std::int32_t(n / 2 + 1) : 0;
      EXPECT_EQ(lu.info[b], want) << "member " << b;
      EXPECT_EQ(info[b], want) << "member " << b;
      if (want) {
        EXPECT_TRUE(X[b].array().isNaN().all());
      } else {
        EXPECT_TRUE(X[b] == clean[b]) << "member " << b << " changed";
      }
    }
    try {
      dla::solve_batched(ctx, A, B);
      FAIL() << "no throw";
    } catch (const dla::SingularMatrix& e) {
      EXPECT_EQ(e.index(), n);
      EXPECT_NE(std::string(e.what()).find("matrix 5 of 40"), std::string::npos) << e.what();
      const std::string u = "U(" + std::to_string(n) + "," + std::to_string(n) + ")";
      EXPECT_NE(std::string(e.what()).find(u), std::string::npos) << e.what();
    }
  }
}

TYPED_TEST(BatchedHost, NotSpdMembersReportedAndAutoFallsBackToLu) {
  using T = TypeParam;
  dla::Context ctx = dla::Context::host();
  for (index_t n : {index_t(4), index_t(32), index_t(70)}) {
    const index_t count = 30;
    auto A = spd_batch<T>(count, n, 37 + n);
    auto B = random_batch<T>(count, n, 1, 41 + n);
    make_not_spd(A, 7, n / 3);
    std::vector<std::int32_t> info;
    auto X = dla::solve_batched(ctx, A, B, Method::Cholesky, &info);
    for (index_t b = 0; b < count; ++b) {
      EXPECT_EQ(info[b], b == 7 ? std::int32_t(n / 3 + 1) : 0) << b;
      if (b == 7) EXPECT_TRUE(X[b].array().isNaN().all());
      else EXPECT_LE(backward_error<T>(A[b], X[b], B[b]), kLimit);
    }
    try {
      dla::solve_batched(ctx, A, B, Method::Cholesky);
      FAIL() << "no throw";
    } catch (const dla::NotPositiveDefinite& e) {
      EXPECT_EQ(e.minor(), n / 3 + 1);
      EXPECT_NE(std::string(e.what()).find("matrix 7 of 30"), std::string::npos) << e.what();
    }
    // Auto: symmetric with a... member 7 has a negative diagonal, so Auto uses LU for all.
    auto Y = dla::solve_batched(ctx, A, B, Method::Auto);
    for (index_t b = 0; b < count; ++b) EXPECT_LE(backward_error<T>(A[b], Y[b], B[b]), kLimit);
    // Symmetric, positive diagonal, indefinite: Cholesky fails, LU redoes it.
    A[7] = spd_batch<T>(1, n, 43)[0];
    A[7](0, 1) = A[7](1, 0) = T(4 * n);
    std::vector<std::int32_t> info2;
    auto Z = dla::solve_batched(ctx, A, B, Method::Auto, &info2);
    for (index_t b = 0; b < count; ++b) {
      EXPECT_EQ(info2[b], 0);
      EXPECT_LE(backward_error<T>(A[b], Z[b], B[b]), kLimit) << b;
    }
  }
}

// A member with one equation in subnormal units (its row scaled by min/4096):
// U gets a subnormal pivot whose reciprocal overflows. LAPACK's getrs divides
// by it and solves such a system accurately; so must the host batched solve.
TYPED_TEST(BatchedHost, SubnormalPivotMemberSolves) {
  using T = TypeParam;
  dla::Context ctx = dla::Context::host();
  for (index_t n : {index_t(2), index_t(17), index_t(100)}) {
    const index_t count = 5, k = 3;
    auto A = random_batch<T>(count, n, n, 47 + n);
    A[2].row(n / 2) *= std::numeric_limits<T>::min() / T(4096);
    Batch<T> B(count, n, k);
    for (index_t b = 0; b < count; ++b) {
      const Mat<double> xt = dla::test::random_matrix<double>(n, k, 53 + n + b);
      B[b] = (A[b].template cast<double>() * xt).template cast<T>();
    }
    std::vector<std::int32_t> info;
    auto X = dla::solve_batched(ctx, A, B, Method::LU, &info);
    for (index_t b = 0; b < count; ++b) {
      ASSERT_EQ(info[b], 0) << "n=" << n << " member " << b;
      ASSERT_TRUE(X[b].allFinite()) << "n=" << n << " member " << b;
      EXPECT_LE(backward_error<T>(A[b], X[b], B[b]), kLimit) << "n=" << n << " member " << b;
    }
  }
}

// Method::Cholesky reads the lower triangle only: NaN/Inf above the diagonal
// is accepted and changes nothing; in the lower triangle it is rejected.
TYPED_TEST(BatchedHost, CholeskyIgnoresTheUpperTriangle) {
  using T = TypeParam;
  dla::Context ctx = dla::Context::host();
  for (index_t n : {index_t(1), index_t(5), index_t(40)}) {
    const index_t count = 6;
    auto A = spd_batch<T>(count, n, 59 + n);
    auto B = random_batch<T>(count, n, 2, 61 + n);
    const auto clean = dla::solve_batched(ctx, A, B, Method::Cholesky);
    auto P = A;
    for (index_t b = 0; b < count; ++b)
      for (index_t j = 1; j < n; ++j)
        for (index_t i = 0; i < j; ++i)
          P[b](i, j) = b % 2 ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::quiet_NaN();
    std::vector<std::int32_t> info;
    auto X = dla::solve_batched(ctx, P, B, Method::Cholesky, &info);
    for (index_t b = 0; b < count; ++b) {
      EXPECT_EQ(info[b], 0) << "n=" << n << " member " << b;
      EXPECT_TRUE(X[b] == clean[b]) << "n=" << n << " member " << b;
    }
    P[3](n - 1, 0) = std::numeric_limits<T>::quiet_NaN();
    EXPECT_THROW(dla::solve_batched(ctx, P, B, Method::Cholesky), dla::InvalidArgument);
  }
}

TYPED_TEST(BatchedHost, BadArguments) {
  using T = TypeParam;
  dla::Context ctx = dla::Context::host();
  auto A = random_batch<T>(4, 5, 5, 1);
  EXPECT_THROW(dla::solve_batched(ctx, A, random_batch<T>(3, 5, 1, 2)), dla::DimensionMismatch);
  EXPECT_THROW(dla::solve_batched(ctx, A, random_batch<T>(4, 6, 1, 2)), dla::DimensionMismatch);
  EXPECT_THROW(dla::lu_factor_batched(ctx, random_batch<T>(4, 5, 6, 2)), dla::DimensionMismatch);
  auto B = random_batch<T>(4, 5, 1, 3);
  A[2](1, 3) = std::numeric_limits<T>::quiet_NaN();
  try {
    dla::solve_batched(ctx, A, B);
    FAIL() << "no throw";
  } catch (const dla::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("matrix 2 of 4"), std::string::npos) << e.what();
  }
  A[2](1, 3) = T(0.5);
  B[3](4, 0) = std::numeric_limits<T>::infinity();
  EXPECT_THROW(dla::solve_batched(ctx, A, B), dla::InvalidArgument);
  // A Method value that is none of the named ones (solve() refuses it) was
  // taken as LU.
  B[3](4, 0) = T(1);
  try {
    dla::solve_batched(ctx, A, B, static_cast<Method>(7));
    FAIL() << "no throw for an unknown method";
  } catch (const dla::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("method"), std::string::npos) << e.what();
  }
  auto empty = dla::lu_factor_batched(ctx, Batch<T>(0, 5, 5));
  EXPECT_TRUE(empty.info.empty());
  auto zero = dla::lu_factor_batched(ctx, Batch<T>(3, 0, 0));
  EXPECT_EQ(zero.info, std::vector<std::int32_t>(3, 0));
}

TEST(BatchedStubs, DeviceEntryPointsWithoutCuda) {
  if (dla::cuda_compiled()) GTEST_SKIP() << "CUDA build";
  std::int32_t info = 0;
  EXPECT_THROW(dla::cuda::sgetrf_batched(nullptr, 1, nullptr, 1, 1, nullptr, &info, 1),
               dla::NotCompiled);
}

}  // namespace
