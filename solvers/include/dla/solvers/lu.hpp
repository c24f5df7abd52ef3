#pragma once
// High-level LU with partial pivoting on host (Eigen) matrices, on the backend
// of the Context: PA = LU.
#include <cstdint>
#include <vector>

#include "dla/core/context.hpp"
#include "dla/core/eigen_view.hpp"
#include "dla/core/types.hpp"

namespace dla {

template <class T>
struct LU {
  Matrix<T> factors;               // L (unit, below the diagonal) and U, LAPACK layout
  std::vector<std::int32_t> ipiv;  // LAPACK 1-based sequential row interchanges, min(m,n)
  index_t info = 0;                // 0, or 1-based index of the first exactly zero U(i,i)
  Backend backend = Backend::Host;
};

// Factors A (any shape). A singular A keeps its factors and info > 0 (no
// throw). NaN/Inf in A: InvalidArgument naming the first bad (row, col).
template <class T>
LU<T> lu_factor(const Context& ctx, const Matrix<T>& A);

// Solves op(A) X = B with the factors. Throws SingularMatrix(info) when
// info > 0, InvalidArgument when the factored A is not square, an ipiv entry
// is not a row 1..n, or B holds NaN/Inf (the first bad (row, col) named),
// DimensionMismatch when B's rows differ from n.
template <class T>
Matrix<T> lu_solve(const Context& ctx, const LU<T>& lu, const Matrix<T>& B, Op op = Op::N);

extern template LU<float> lu_factor(const Context&, const Matrix<float>&);
extern template LU<double> lu_factor(const Context&, const Matrix<double>&);
extern template Matrix<float> lu_solve(const Context&, const LU<float>&, const Matrix<float>&, Op);
extern template Matrix<double> lu_solve(const Context&, const LU<double>&, const Matrix<double>&,
                                        Op);

}  // namespace dla
