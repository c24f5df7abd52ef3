// High-level Cholesky: input checks, then the host path (Eigen, blocked, with
// our own detection of the first non-positive pivot) or the CUDA path
// (dla::cuda::s/dpotrf and s/dpotrs through DeviceMatrix staging).
#include "dla/solvers/cholesky.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/cholesky_cuda.hpp"
#include "finite_check.hpp"

namespace dla {
namespace {

// Lower Cholesky of L's lower triangle in place (the strict upper part is
// ignored). Returns 0 or the 1-based order of the first failing minor.
// Blocked: an unblocked column loop on each nb-wide diagonal block (where the
// pivots are checked), the panel solve and the rank-nb update through Eigen.
template <class T>
index_t host_potrf_lower(Matrix<T>& L) {
  const index_t n = L.rows();
  constexpr index_t nb = 64;
  for (index_t j = 0; j < n; j += nb) {
    const index_t jb = std::min(nb, n - j);
    for (index_t c = j; c < j + jb; ++c) {
      const T d = L(c, c);
      if (!(d > T(0)) || !std::isfinite(d)) return c + 1;
      const T s = std::sqrt(d);
      L(c, c) = s;
      const index_t rows = j + jb - c - 1;
      if (rows > 0) {
        L.col(c).segment(c + 1, rows) /= s;
        // Update the rest of the diagonal block (lower part used only).
        L.block(c + 1, c + 1, rows, rows).template triangularView<Eigen::Lower>() -=
            L.col(c).segment(c + 1, rows) * L.col(c).segment(c + 1, rows).transpose();
      }
    }
    const index_t r = n - j - jb;
    if (r == 0) break;
    auto L11 = L.block(j, j, jb, jb);
    auto A21 = L.block(j + jb, j, r, jb);
    // L21 = A21 L11^-T  <=>  L11 L21^T = A21^T
    L11.template triangularView<Eigen::Lower>().solveInPlace(A21.transpose());
    L.block(j + jb, j + jb, r, r).template selfadjointView<Eigen::Lower>().rankUpdate(A21, T(-1));
  }
  return 0;
}

template <class T>
void check_input(const Matrix<T>& A, Uplo uplo) {
  if (A.rows() != A.cols())
    throw InvalidArgument("cholesky_factor: A is " + std::to_string(A.rows()) + "x" +
                          std::to_string(A.cols()) + ", must be square");
  if (!is_valid(uplo))
    throw InvalidArgument("cholesky_factor: uplo must be Lower or Upper");
  const index_t n = A.rows();
  for (index_t j = 0; j < n; ++j) {
    const index_t i0 = uplo == Uplo::Lower ? j : 0, i1 = uplo == Uplo::Lower ? n : j + 1;
    for (index_t i = i0; i < i1; ++i)
      if (!std::isfinite(A(i, j)))
        throw InvalidArgument("cholesky_factor: A(" + std::to_string(i) + ", " +
                              std::to_string(j) + ") is not finite (NaN/Inf input)");
  }
}

[[noreturn]] void throw_not_pd(index_t minor, index_t n) {
  throw NotPositiveDefinite(minor, "cholesky_factor: the leading minor of order " +
                                       std::to_string(minor) + " of the " + std::to_string(n) +
                                       "x" + std::to_string(n) +
                                       " matrix is not positive definite");
}

}  // namespace

template <class T>
Cholesky<T> cholesky_factor(const Context& ctx, const Matrix<T>& A, Uplo uplo) {
  check_input(A, uplo);
  const index_t n = A.rows();
  Cholesky<T> out;
  out.uplo = uplo;
  out.backend = ctx.is_cuda() ? Backend::Cuda : Backend::Host;
  if (!ctx.is_cuda()) {
    // Work on the lower triangle (the transpose for Upper).
    Matrix<T> L = uplo == Uplo::Lower ? A : Matrix<T>(A.transpose());
    const index_t minor = host_potrf_lower(L);
    if (minor != 0) throw_not_pd(minor, n);
    L.template triangularView<Eigen::StrictlyUpper>().setZero();
    out.factor = uplo == Uplo::Lower ? std::move(L) : Matrix<T>(L.transpose());
    return out;
  }
  ctx.activate();
  // float: a leading dimension that suits spotrf's 16-byte loads
  // (aligned_ld), set in the upload's 2-D copy, so that spotrf needs no
  // aligned copy in a workspace (the upload's own cost with it not measured).
  const index_t ld = std::is_same_v<T, float> ? aligned_ld(n) : std::max<index_t>(n, 1);
  DeviceMatrix<T> dA(n, n, ld);
  dA.upload(HostView<const T>(A.data(), n, n, std::max<index_t>(n, 1)), ctx.stream());
  DeviceBuffer<int> dinfo(1);
  int r;
  if constexpr (std::is_same_v<T, float>) {
    const std::size_t ws = cuda::spotrf_buffer_size(n, dA.data(), dA.ld());
    r = cuda::spotrf(ctx.stream(), uplo, n, dA.data(), dA.ld(), dinfo.data(),
                     ws ? ctx.workspace(ws) : nullptr, ws);
  } else {
    const std::size_t ws = cuda::dpotrf_buffer_size(n, dA.data(), dA.ld());
    r = cuda::dpotrf(ctx.stream(), uplo, n, dA.data(), dA.ld(), dinfo.data(),
                     ws ? ctx.workspace(ws) : nullptr, ws);
  }
  if (r != 0) throw_bad_argument(std::is_same_v<T, float> ? "spotrf" : "dpotrf", r);
  int info = 0;
  dinfo.download(&info, 1, ctx.stream());
  ctx.synchronize();
  if (info != 0) throw_not_pd(info, n);
  out.factor = dA.to_host(ctx.stream());
  if (uplo == Uplo::Lower) out.factor.template triangularView<Eigen::StrictlyUpper>().setZero();
  else out.factor.template triangularView<Eigen::StrictlyLower>().setZero();
  return out;
}

template <class T>
Matrix<T> cholesky_solve(const Context& ctx, const Cholesky<T>& chol, const Matrix<T>& B) {
  const index_t n = chol.factor.rows();
  if (chol.factor.cols() != n)
    throw InvalidArgument("cholesky_solve: the factor is not square");
  if (B.rows() != n)
    throw DimensionMismatch("cholesky_solve: B is " + std::to_string(B.rows()) + "x" +
                            std::to_string(B.cols()) + " but A is " + std::to_string(n) + "x" +
                            std::to_string(n) + " (need B rows == " + std::to_string(n) + ")");
  detail::require_finite(B, "cholesky_solve", "B");
  Matrix<T> X = B;
  if (X.size() == 0) return X;
  if (!ctx.is_cuda()) {
    if (chol.uplo == Uplo::Lower) {
      const auto L = chol.factor.template triangularView<Eigen::Lower>();
      L.solveInPlace(X);
      chol.factor.transpose().template triangularView<Eigen::Upper>().solveInPlace(X);
    } else {
      chol.factor.transpose().template triangularView<Eigen::Lower>().solveInPlace(X);
      chol.factor.template triangularView<Eigen::Upper>().solveInPlace(X);
    }
    return X;
  }
  ctx.activate();
  DeviceMatrix<T> dA(chol.factor, ctx.stream());
  DeviceMatrix<T> dB(X, ctx.stream());
  int r;
  if constexpr (std::is_same_v<T, float>)
    r = cuda::spotrs(ctx.stream(), chol.uplo, n, X.cols(), dA.data(), dA.ld(), dB.data(), dB.ld());
  else
    r = cuda::dpotrs(ctx.stream(), chol.uplo, n, X.cols(), dA.data(), dA.ld(), dB.data(), dB.ld());
  if (r != 0) throw_bad_argument(std::is_same_v<T, float> ? "spotrs" : "dpotrs", r);
  dB.download(host_view(X), ctx.stream());
  ctx.synchronize();
  return X;
}

template Cholesky<float> cholesky_factor<float>(const Context&, const Matrix<float>&, Uplo);
template Cholesky<double> cholesky_factor<double>(const Context&, const Matrix<double>&, Uplo);
template Matrix<float> cholesky_solve<float>(const Context&, const Cholesky<float>&,
                                             const Matrix<float>&);
template Matrix<double> cholesky_solve<double>(const Context&, const Cholesky<double>&,
                                               const Matrix<double>&);

}  // namespace dla
