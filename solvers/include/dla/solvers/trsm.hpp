#pragma once
// High-level triangular solve with many right-hand sides:
//   side = Left :  op(A) X = alpha B   (A is m x m, B is m x n)
//   side = Right:  X op(A) = alpha B   (A is n x n)
// B is overwritten by X. Only the `uplo` triangle of A is referenced; with
// Diag::Unit its diagonal is not referenced either. Runs on the Context's
// backend: the host path uses Eigen's triangularView, the CUDA path stages
// through the device and calls dla::cuda::strsm/dtrsm. A non-square A or a B
// whose shape does not fit throws DimensionMismatch.
#include "dla/core/context.hpp"
#include "dla/core/eigen_view.hpp"
#include "dla/core/types.hpp"

namespace dla {

template <class T>
void triangular_solve(const Context& ctx, Side side, Uplo uplo, Op opA, Diag diag, T alpha,
                      const Matrix<T>& A, Matrix<T>& B);

extern template void triangular_solve<float>(const Context&, Side, Uplo, Op, Diag, float,
                                             const Matrix<float>&, Matrix<float>&);
extern template void triangular_solve<double>(const Context&, Side, Uplo, Op, Diag, double,
                                              const Matrix<double>&, Matrix<double>&);

}  // namespace dla
