// solve(): the front door, dispatching to LU or Cholesky.
#include "dla/solvers/solve.hpp"

#include <string>

#include "dla/core/error.hpp"
#include "dla/solvers/lu.hpp"
#include "dla/solvers/cholesky.hpp"
#include "finite_check.hpp"

namespace dla {
namespace {

template <class T>
bool symmetric_positive_diagonal(const Matrix<T>& A) {
  const index_t n = A.rows();
  for (index_t j = 0; j < n; ++j) {
    if (!(A(j, j) > T(0))) return false;
    for (index_t i = j + 1; i < n; ++i)
      if (A(i, j) != A(j, i)) return false;
  }
  return true;
}

template <class T>
Matrix<T> solve_lu(const Context& ctx, const Matrix<T>& A, const Matrix<T>& B) {
  const LU<T> lu = lu_factor(ctx, A);
  return lu_solve(ctx, lu, B, Op::N);  // throws SingularMatrix(info)
}

template <class T>
Matrix<T> solve_cholesky(const Context& ctx, const Matrix<T>& A, const Matrix<T>& B) {
  const Cholesky<T> chol = cholesky_factor(ctx, A, Uplo::Lower);
  return cholesky_solve(ctx, chol, B);
}

}  // namespace

template <class T>
Matrix<T> solve(const Context& ctx, const Matrix<T>& A, const Matrix<T>& B, Method method) {
  if (A.rows() != A.cols())
    throw InvalidArgument("solve: A is " + std::to_string(A.rows()) + "x" +
                          std::to_string(A.cols()) + ", not square");
  if (B.rows() != A.rows())
    throw DimensionMismatch("solve: B has " + std::to_string(B.rows()) + " rows, A is " +
                            std::to_string(A.rows()) + "x" + std::to_string(A.cols()));
  detail::require_finite(B, "solve", "B");  // before the factorization, not after it
  switch (method) {
    case Method::LU: return solve_lu(ctx, A, B);
    case Method::Cholesky: return solve_cholesky(ctx, A, B);
    case Method::Auto:
      if (symmetric_positive_diagonal(A)) {
        try {
          return solve_cholesky(ctx, A, B);
        } catch (const NotPositiveDefinite&) {
          // symmetric but indefinite: LU below
        }
      }
      return solve_lu(ctx, A, B);
  }
  throw InvalidArgument("solve: unknown method");
}

template Matrix<float> solve(const Context&, const Matrix<float>&, const Matrix<float>&, Method);
template Matrix<double> solve(const Context&, const Matrix<double>&, const Matrix<double>&,
                              Method);

}  // namespace dla
