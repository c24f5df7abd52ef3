#pragma once
// The host paths' solve with a non-unit triangle (Eigen), dividing by its
// diagonal as LAPACK's getrs and BLAS trsm (left side) do. Eigen's solve with
// a matrix right-hand side multiplies by the reciprocal of each diagonal
// entry, which overflows when the entry is subnormal; its solve with one
// vector divides. So where `diag` holds a subnormal entry, the columns of X
// are solved one at a time; otherwise all at once, as before.
#include <Eigen/Core>
#include <limits>

namespace dla::detail {

template <class Tri, class Diag, class Rhs>
void solve_dividing(const Tri& tri, const Diag& diag, Rhs& X) {
  using T = typename Rhs::Scalar;
  if ((diag.cwiseAbs().array() < std::numeric_limits<T>::min()).any())
    for (Eigen::Index j = 0; j < X.cols(); ++j) tri.solveInPlace(X.col(j));
  else
    tri.solveInPlace(X);
}

}  // namespace dla::detail
