#pragma once
// Shared helpers of the LU tests: a reference LAPACK-style LU in double,
// backward-error measures, and the subnormal-pivot cases run on both backends.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "dla/core/context.hpp"
#include "dla/solvers/lu.hpp"
#include "dla/solvers/solve.hpp"
#include "test_util.hpp"

namespace dla::test {

using MatD = Mat<double>;

// Unblocked LU with LAPACK's pivot choice (first max |a| in the column), in double.
inline void reference_getrf(MatD& F, std::vector<std::int32_t>& ipiv, std::int64_t& info) {
  const Eigen::Index m = F.rows(), n = F.cols(), k = std::min(m, n);
  ipiv.assign(std::size_t(k), 0);
  info = 0;
  for (Eigen::Index j = 0; j < k; ++j) {
    Eigen::Index p = j;
    double mx = std::abs(F(j, j));
    for (Eigen::Index i = j + 1; i < m; ++i)
      if (std::abs(F(i, j)) > mx) { mx = std::abs(F(i, j)); p = i; }
    ipiv[std::size_t(j)] = std::int32_t(p + 1);
    if (mx != 0.0) {
      if (p != j) F.row(p).swap(F.row(j));
      F.col(j).tail(m - j - 1) /= F(j, j);
    } else if (info == 0) {
      info = j + 1;
    }
    if (j + 1 < m && j + 1 < n)
      F.bottomRightCorner(m - j - 1, n - j - 1).noalias() -=
          F.col(j).tail(m - j - 1) * F.row(j).tail(n - j - 1);
  }
}

inline double norm1(const MatD& A) {
  return A.size() == 0 ? 0.0 : A.cwiseAbs().colwise().sum().maxCoeff();
}

// P A from A and LAPACK ipiv.
inline MatD apply_pivots(MatD A, const std::vector<std::int32_t>& ipiv) {
  for (std::size_t k = 0; k < ipiv.size(); ++k)
    if (ipiv[k] - 1 != std::int32_t(k)) A.row(Eigen::Index(k)).swap(A.row(ipiv[k] - 1));
  return A;
}

template <class T>
MatD unit_lower(const Mat<T>& F) {
  const Eigen::Index m = F.rows(), k = std::min(F.rows(), F.cols());
  MatD L = F.template cast<double>().leftCols(k).template triangularView<Eigen::StrictlyLower>();
  for (Eigen::Index i = 0; i < k; ++i) L(i, i) = 1.0;
  (void)m;
  return L;
}
template <class T>
MatD upper(const Mat<T>& F) {
  const Eigen::Index k = std::min(F.rows(), F.cols());
  return F.template cast<double>().topRows(k).template triangularView<Eigen::Upper>();
}

// ||P A - L U||_1 / (max(m,n) ||A||_1 eps): exact product for small sizes,
// through a random block of vectors (O(n^2)) for large ones.
template <class T>
double factor_backward_error(const Mat<T>& A, const Mat<T>& F,
                             const std::vector<std::int32_t>& ipiv) {
  const double eps = std::numeric_limits<T>::epsilon();
  const MatD Ad = A.template cast<double>();
  const double nA = norm1(Ad);
  const double dim = double(std::max(A.rows(), A.cols()));
  if (nA == 0.0) return 0.0;
  const MatD PA = apply_pivots(Ad, ipiv);
  const MatD L = unit_lower(F), U = upper(F);
  // Divided by ||A|| first: a subnormal A times eps would underflow to 0.
  if (std::max(A.rows(), A.cols()) <= 1100) return norm1(PA - L * U) / nA / (dim * eps);
  const MatD X = random_matrix<double>(A.cols(), 4, 99);
  const MatD R = PA * X - L * (U * X);
  return norm1(R) / nA / (dim * norm1(X) * eps);
}

// ||op(A) X - B||_1 / (||A||_1 ||X||_1 n eps)
template <class T>
double solve_backward_error(const Mat<T>& A, const Mat<T>& X, const Mat<T>& B, bool trans) {
  const double eps = std::numeric_limits<T>::epsilon();
  const MatD Ad = trans ? MatD(A.template cast<double>().transpose()) : MatD(A.template cast<double>());
  const MatD Xd = X.template cast<double>();
  const MatD R = Ad * Xd - B.template cast<double>();
  const double den = norm1(Ad) * norm1(Xd) * double(A.rows()) * eps;
  return den == 0.0 ? norm1(R) : norm1(R) / den;
}

// A column of subnormal magnitude (the first by default; a later one puts the
// tiny pivot inside a panel, after other columns' updates): the pivot's
// reciprocal overflows, so LAPACK's getf2 divides by such a pivot. The
// factors stay finite on every backend, square and rectangular alike.
template <class T>
void check_subnormal_pivot_column(const Context& ctx, Eigen::Index m, Eigen::Index n,
                                  Eigen::Index col = 0, double limit = 50.0) {
  SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n << " col=" << col << " "
                                    << to_string(ctx.backend()));
  Mat<T> A = random_matrix<T>(m, n, 4500 + m + n);
  A.col(col) *= std::numeric_limits<T>::min() / T(64);
  const LU<T> lu = lu_factor(ctx, Matrix<T>(A));
  EXPECT_EQ(lu.info, 0);
  ASSERT_TRUE(lu.factors.allFinite());
  EXPECT_LE(factor_backward_error<T>(A, Mat<T>(lu.factors), lu.ipiv), limit);
}

// check_subnormal_pivot_column for each shape, float and double, with the
// tiny column first and in the middle (a tiny pivot inside a panel, after the
// updates of the columns before it).
inline void check_subnormal_pivot_columns(const Context& ctx,
                                          const std::vector<std::pair<int, int>>& shapes) {
  for (auto [m, n] : shapes)
    for (Eigen::Index col : {Eigen::Index(0), Eigen::Index(std::min(m, n) / 2)}) {
      check_subnormal_pivot_column<float>(ctx, m, n, col);
      check_subnormal_pivot_column<double>(ctx, m, n, col);
    }
}

// One equation of op(A) X = B in subnormal units (a row of op(A), so a row of
// A for op N and a column for op T, scaled by min/4096; its entry of B is as
// small): U gets a subnormal pivot whose reciprocal overflows. LAPACK's getrs
// (trsm) divides by it and solves the system accurately; so must lu_solve, for
// every op and any number of right-hand sides, and solve(), on every backend.
// (Scaling a row of A for op T too made an ill-posed test: B's entries stay
// normal, so the rounding of B alone moves the exact X by ~eps |B| / pivot.
// Measured on the host: X up to 1.5e37 in float and 4e297 in double, and
// inf on the GPU at n = 3001 with 200 right-hand sides.)
template <class T>
void check_subnormal_pivot_solve(const Context& ctx, Eigen::Index n, Eigen::Index nrhs, Op op,
                                 double limit = 50.0) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " nrhs=" << nrhs << " op=" << to_string(op)
                                    << " " << to_string(ctx.backend()));
  Mat<T> A = random_matrix<T>(n, n, 600 + n);
  const T tiny = std::numeric_limits<T>::min() / T(4096);
  if (op == Op::N)
    A.row(n / 2) *= tiny;
  else
    A.col(n / 2) *= tiny;
  const MatD Xt = random_matrix<double>(n, nrhs, 700 + n);
  const MatD Ad = A.template cast<double>();
  const Mat<T> B = (op == Op::N ? MatD(Ad * Xt) : MatD(Ad.transpose() * Xt)).template cast<T>();
  const LU<T> lu = lu_factor(ctx, Matrix<T>(A));
  ASSERT_EQ(lu.info, 0);
  const Matrix<T> X = lu_solve(ctx, lu, Matrix<T>(B), op);
  ASSERT_TRUE(X.allFinite());
  EXPECT_LE(solve_backward_error<T>(A, Mat<T>(X), B, op == Op::T), limit);
  // The normwise backward error cannot see a huge X (it divides by ||X||);
  // the true X has entries in [-1, 1], and the host's largest is 1.18 (n =
  // 3001, 200 right-hand sides, float).
  EXPECT_LE(Mat<T>(X).cwiseAbs().maxCoeff(), T(4));
  if (op == Op::N) {
    const Matrix<T> Y = solve(ctx, Matrix<T>(A), Matrix<T>(B));
    ASSERT_TRUE(Y.allFinite());
    EXPECT_LE(solve_backward_error<T>(A, Mat<T>(Y), B, false), limit);
  }
}

// The last equation in subnormal units, alone: A is diagonally dominant
// (well conditioned), and its last row (op N; op T: its last column) is zero
// but for a subnormal diagonal entry. No row is swapped, the last pivot is
// that entry, its multipliers are exact zeros, and X is known (entries in
// [0.5, 1.5]). A normwise residual cannot see an error in the last unknown
// (only the last equation, of subnormal size, would be off), so this checks
// X itself, componentwise: a solve that got x(n-1) wrong by any factor, or
// zero, is off by more than a third there. x(n-1) = b / pivot carries only
// the rounding of b (a subnormal with ~21 bits in float); the host backend
// measured at most 2.4e-6 in float and 8.3e-15 in double at n <= 3001, where
// the limits are 1e-4 and 1e-11.
template <class T>
void check_subnormal_last_pivot_accuracy(const Context& ctx, Eigen::Index n, Eigen::Index nrhs,
                                         Op op) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " nrhs=" << nrhs << " op=" << to_string(op)
                                    << " " << to_string(ctx.backend()));
  MatD Ad = random_matrix<double>(n, n, 800 + n);
  Ad.diagonal().array() += double(n);
  const double pivot = double(std::numeric_limits<T>::min()) * (0.25 + 0.125 * Ad(n - 1, n - 1) / n);
  if (op == Op::N) Ad.row(n - 1).setZero();
  else Ad.col(n - 1).setZero();
  Ad(n - 1, n - 1) = pivot;
  Ad = Ad.template cast<T>().template cast<double>();  // exactly the T matrix
  const MatD Xt = (MatD::Constant(n, nrhs, 1.0) + 0.5 * random_matrix<double>(n, nrhs, 900 + n))
                      .template cast<T>()
                      .template cast<double>();
  const Mat<T> B = (op == Op::N ? MatD(Ad * Xt) : MatD(Ad.transpose() * Xt)).template cast<T>();
  const LU<T> lu = lu_factor(ctx, Matrix<T>(Ad.template cast<T>()));
  ASSERT_EQ(lu.info, 0);
  const double last = double(std::abs(lu.factors(n - 1, n - 1)));
  EXPECT_LT(last, double(std::numeric_limits<T>::min())) << "the last pivot is not subnormal";
  EXPECT_GT(last, 0.0);
  const Matrix<T> X = lu_solve(ctx, lu, Matrix<T>(B), op);
  ASSERT_TRUE(X.allFinite());
  const double err = ((X.template cast<double>() - Xt).cwiseAbs().array() / Xt.cwiseAbs().array())
                         .maxCoeff();
  const double limit = std::is_same_v<T, float> ? 1e-4 : 1e-11;
  EXPECT_LE(err, limit) << "max componentwise relative error of X";
}

}  // namespace dla::test
