#pragma once
// High-level Cholesky factorization and solve.
//
// cholesky_factor: A = L L^T (uplo = Lower, factor holds L) or A = U^T U
// (uplo = Upper, factor holds U). Only the `uplo` triangle of A is referenced;
// the other triangle of the returned factor is zero. Throws InvalidArgument for
// a non-square A or NaN/Inf in the referenced triangle, NotPositiveDefinite
// (minor() = order of the first leading minor that is not positive definite,
// also named in the message) when A is not positive definite.
// cholesky_solve: X with A X = B from a factorization; DimensionMismatch when
// B's row count differs from the order of A, InvalidArgument for NaN/Inf in B.
// Both run on the Context's backend (Host: Eigen; Cuda: dla::cuda::s/dpotrf,
// s/dpotrs, staging host matrices through the device).
#include "dla/core/context.hpp"
#include "dla/core/eigen_view.hpp"
#include "dla/core/types.hpp"

namespace dla {

template <class T>
struct Cholesky {
  Matrix<T> factor;
  Uplo uplo = Uplo::Lower;
  index_t info = 0;
  Backend backend = Backend::Host;
};

template <class T>
Cholesky<T> cholesky_factor(const Context& ctx, const Matrix<T>& A, Uplo uplo = Uplo::Lower);

template <class T>
Matrix<T> cholesky_solve(const Context& ctx, const Cholesky<T>& chol, const Matrix<T>& B);

extern template Cholesky<float> cholesky_factor<float>(const Context&, const Matrix<float>&, Uplo);
extern template Cholesky<double> cholesky_factor<double>(const Context&, const Matrix<double>&,
                                                         Uplo);
extern template Matrix<float> cholesky_solve<float>(const Context&, const Cholesky<float>&,
                                                    const Matrix<float>&);
extern template Matrix<double> cholesky_solve<double>(const Context&, const Cholesky<double>&,
                                                      const Matrix<double>&);

}  // namespace dla
