#pragma once
// Shared helpers of the Cholesky tests (cholesky_test.cpp: the high-level API
// on both backends and the blocking rules; cholesky_test_cuda.cpp: the
// low-level dla::cuda API): SPD matrices, one that fails at a known minor,
// the factor residual and the solve backward error in double.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "dla/core/context.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/cholesky.hpp"
#include "test_util.hpp"

namespace cholesky_test {

using dla::index_t;
using dla::Uplo;
using MatD = Eigen::MatrixXd;

// Symmetric, entries in [-1, 1), diagonal shifted by 3 sqrt(n) + 1: positive
// definite with condition number around 3, every entry significant. O(n^2).
inline MatD random_spd(index_t n, std::uint64_t seed) {
  MatD A = dla::test::random_matrix<double>(n, n, seed);
  MatD S = 0.5 * (A + A.transpose());
  S.diagonal().array() += 3.0 * std::sqrt(double(n)) + 1.0;
  return S;
}

// The leading k x k block stays positive definite, the minor of order k + 1
// does not: A(k, k) = a^T A_k^-1 a - 1 makes the Schur complement -1.
inline MatD spd_failing_at(index_t n, index_t k, std::uint64_t seed) {
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

}  // namespace cholesky_test
