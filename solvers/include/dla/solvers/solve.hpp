#pragma once
// The front door: solve A X = B.
#include "dla/core/context.hpp"
#include "dla/core/eigen_view.hpp"
#include "dla/solvers/method.hpp"

namespace dla {

// Method::LU: lu_factor + lu_solve (SingularMatrix naming the zero pivot).
// Method::Cholesky: cholesky_factor(Lower) + cholesky_solve (NotPositiveDefinite).
// Method::Auto: Cholesky when A is exactly symmetric with a positive diagonal,
// falling back to LU when it is not positive definite; LU otherwise.
// A must be square (InvalidArgument), B must have A's rows (DimensionMismatch)
// and be finite (InvalidArgument naming the first NaN/Inf, before any work).
template <class T>
Matrix<T> solve(const Context& ctx, const Matrix<T>& A, const Matrix<T>& B,
                Method method = Method::LU);

extern template Matrix<float> solve(const Context&, const Matrix<float>&, const Matrix<float>&,
                                    Method);
extern template Matrix<double> solve(const Context&, const Matrix<double>&, const Matrix<double>&,
                                     Method);

}  // namespace dla
