// High-level LU: lu_factor / lu_solve on host matrices, host (Eigen) or CUDA path.
#include "dla/solvers/lu.hpp"

#include <Eigen/LU>
#include <cmath>
#include <string>
#include <type_traits>

#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/lu_cuda.hpp"
#include "finite_check.hpp"
#include "host_tri_solve.hpp"

namespace dla {
namespace {

template <class T>
index_t first_zero_pivot(const Matrix<T>& F) {
  const index_t k = std::min(F.rows(), F.cols());
  for (index_t i = 0; i < k; ++i)
    if (F(i, i) == T(0)) return i + 1;
  return 0;
}

// Right-looking blocked LU with LAPACK pivoting (first max |a|), any shape.
// Rows are swapped across the whole matrix, which is what LAPACK's sequence of
// laswp calls amounts to.
template <class T>
void host_getrf_blocked(Matrix<T>& F, std::vector<std::int32_t>& ipiv) {
  const index_t m = F.rows(), n = F.cols(), kmin = std::min(m, n);
  constexpr index_t nb = 64;
  for (index_t k = 0; k < kmin; k += nb) {
    const index_t jb = std::min(nb, kmin - k);
    for (index_t j = k; j < k + jb; ++j) {
      Eigen::Index p = 0;
      const T mx = F.col(j).segment(j, m - j).cwiseAbs().maxCoeff(&p);
      p += j;
      ipiv[j] = static_cast<std::int32_t>(p + 1);
      if (mx != T(0)) {
        if (p != j) F.row(p).swap(F.row(j));
        F.col(j).segment(j + 1, m - j - 1) /= F(j, j);  // 1/pivot overflows when subnormal
      }
      const index_t r = m - j - 1, c = k + jb - j - 1;
      if (r > 0 && c > 0)
        F.block(j + 1, j + 1, r, c).noalias() -=
            F.col(j).segment(j + 1, r) * F.row(j).segment(j + 1, c);
    }
    const index_t nr = n - k - jb;
    if (nr > 0) {
      F.block(k, k, jb, jb).template triangularView<Eigen::UnitLower>().solveInPlace(
          F.block(k, k + jb, jb, nr));
      const index_t mr = m - k - jb;
      if (mr > 0)
        F.block(k + jb, k + jb, mr, nr).noalias() -=
            F.block(k + jb, k, mr, jb) * F.block(k, k + jb, jb, nr);
    }
  }
}

template <class T>
void host_getrf(LU<T>& lu) {
  Matrix<T>& F = lu.factors;
  const index_t m = F.rows(), n = F.cols();
  lu.ipiv.assign(std::size_t(std::min(m, n)), 0);
  if (m == n && n > 0) {
    Eigen::PartialPivLU<Matrix<T>> plu(F);
    F = plu.matrixLU();
    // P A = L U; P.indices()(i) is the position row i of A moves to. Convert
    // the permutation into LAPACK's sequential interchanges.
    const auto& to = plu.permutationP().indices();
    const std::size_t nn = static_cast<std::size_t>(n);
    std::vector<index_t> orig(nn), cur(nn), where(nn);
    for (index_t i = 0; i < n; ++i) orig[std::size_t(to(i))] = i;
    for (index_t i = 0; i < n; ++i) cur[std::size_t(i)] = where[std::size_t(i)] = i;
    for (index_t k = 0; k < n; ++k) {
      const index_t want = orig[std::size_t(k)];
      const index_t p = where[std::size_t(want)];
      lu.ipiv[std::size_t(k)] = static_cast<std::int32_t>(p + 1);
      const index_t at_k = cur[std::size_t(k)];
      std::swap(cur[std::size_t(k)], cur[std::size_t(p)]);
      where[std::size_t(at_k)] = p;
      where[std::size_t(want)] = k;
    }
  } else {
    host_getrf_blocked(F, lu.ipiv);
  }
  lu.info = first_zero_pivot(F);
}

template <class T>
void device_getrf(const Context& ctx, LU<T>& lu) {
  ctx.activate();
  const index_t m = lu.factors.rows(), n = lu.factors.cols(), k = std::min(m, n);
  stream_t s = ctx.stream();
  // A leading dimension that suits the GEMM's 16-byte vectors (aligned_ld),
  // set in the upload's 2-D copy, so that getrf needs no aligned copy.
  DeviceMatrix<T> dA(m, n, aligned_ld(std::max<index_t>(m, 1)));
  dA.upload(HostView<const T>(lu.factors.data(), m, n, std::max<index_t>(m, 1)), s);
  DeviceBuffer<std::int32_t> dpiv(k);
  DeviceBuffer<int> dinfo(1);
  const std::size_t bytes = std::is_same_v<T, float> ? cuda::sgetrf_buffer_size(m, n)
                                                     : cuda::dgetrf_buffer_size(m, n);
  void* ws = ctx.workspace(bytes);
  int r;
  if constexpr (std::is_same_v<T, float>)
    r = cuda::sgetrf(s, m, n, dA.data(), dA.ld(), dpiv.data(), dinfo.data(), ws);
  else
    r = cuda::dgetrf(s, m, n, dA.data(), dA.ld(), dpiv.data(), dinfo.data(), ws);
  if (r != 0) throw_bad_argument(std::is_same_v<T, float> ? "sgetrf" : "dgetrf", r);
  dA.download(host_view(lu.factors), s);
  lu.ipiv.assign(std::size_t(k), 0);
  if (k > 0) dpiv.download(lu.ipiv.data(), k, s);
  int info = 0;
  dinfo.download(&info, 1, s);
  ctx.synchronize();
  lu.info = info;
}

template <class T>
void host_getrs(const LU<T>& lu, Matrix<T>& X, Op op) {
  const Matrix<T>& F = lu.factors;
  const index_t n = F.rows();
  if (op == Op::N) {
    for (index_t k = 0; k < n; ++k) {
      const index_t p = lu.ipiv[std::size_t(k)] - 1;
      if (p != k) X.row(k).swap(X.row(p));
    }
    F.template triangularView<Eigen::UnitLower>().solveInPlace(X);
    detail::solve_dividing(F.template triangularView<Eigen::Upper>(), F.diagonal(), X);
  } else {
    detail::solve_dividing(F.transpose().template triangularView<Eigen::Lower>(), F.diagonal(), X);
    F.transpose().template triangularView<Eigen::UnitUpper>().solveInPlace(X);
    for (index_t k = n - 1; k >= 0; --k) {
      const index_t p = lu.ipiv[std::size_t(k)] - 1;
      if (p != k) X.row(k).swap(X.row(p));
    }
  }
}

template <class T>
void device_getrs(const Context& ctx, const LU<T>& lu, Matrix<T>& X, Op op) {
  ctx.activate();
  const index_t n = lu.factors.rows();
  stream_t s = ctx.stream();
  DeviceMatrix<T> dA(lu.factors, s);
  DeviceMatrix<T> dB(X, s);
  DeviceBuffer<std::int32_t> dpiv(n);
  dpiv.upload(lu.ipiv.data(), n, s);
  int r;
  if constexpr (std::is_same_v<T, float>)
    r = cuda::sgetrs(s, op, n, X.cols(), dA.data(), dA.ld(), dpiv.data(), dB.data(), dB.ld());
  else
    r = cuda::dgetrs(s, op, n, X.cols(), dA.data(), dA.ld(), dpiv.data(), dB.data(), dB.ld());
  if (r != 0) throw_bad_argument(std::is_same_v<T, float> ? "sgetrs" : "dgetrs", r);
  dB.download(host_view(X), s);
  ctx.synchronize();
}

}  // namespace

template <class T>
LU<T> lu_factor(const Context& ctx, const Matrix<T>& A) {
  detail::require_finite(A, "lu_factor", "A");
  LU<T> lu;
  lu.factors = A;
  lu.backend = ctx.backend();
  if (A.size() == 0) {
    lu.ipiv.clear();
    return lu;
  }
  if (ctx.is_cuda()) device_getrf(ctx, lu);
  else host_getrf(lu);
  return lu;
}

template <class T>
Matrix<T> lu_solve(const Context& ctx, const LU<T>& lu, const Matrix<T>& B, Op op) {
  const index_t n = lu.factors.rows();
  if (lu.factors.cols() != n)
    throw InvalidArgument("lu_solve: the factored matrix is " + std::to_string(n) + "x" +
                          std::to_string(lu.factors.cols()) + ", not square");
  if (B.rows() != n)
    throw DimensionMismatch("lu_solve: B has " + std::to_string(B.rows()) +
                            " rows, the factored matrix is " + std::to_string(n) + "x" +
                            std::to_string(n));
  if (index_t(lu.ipiv.size()) != n)
    throw InvalidArgument("lu_solve: ipiv has " + std::to_string(lu.ipiv.size()) +
                          " entries, expected " + std::to_string(n));
  for (index_t i = 0; i < n; ++i)  // a caller-built ipiv: rows out of range would be swapped
    if (lu.ipiv[std::size_t(i)] < 1 || lu.ipiv[std::size_t(i)] > n)
      throw InvalidArgument("lu_solve: ipiv[" + std::to_string(i) + "] (0-based) is " +
                            std::to_string(lu.ipiv[std::size_t(i)]) + ", not a row 1.." +
                            std::to_string(n) + " (LAPACK's 1-based pivots)");
  detail::require_finite(B, "lu_solve", "B");
  if (lu.info > 0)
    throw SingularMatrix(lu.info, "lu_solve: the matrix is singular: U(" +
                                      std::to_string(lu.info) + ", " + std::to_string(lu.info) +
                                      ") (1-based) is exactly zero");
  Matrix<T> X = B;
  if (n == 0 || X.cols() == 0) return X;
  if (ctx.is_cuda()) device_getrs(ctx, lu, X, op);
  else host_getrs(lu, X, op);
  return X;
}

template LU<float> lu_factor(const Context&, const Matrix<float>&);
template LU<double> lu_factor(const Context&, const Matrix<double>&);
template Matrix<float> lu_solve(const Context&, const LU<float>&, const Matrix<float>&, Op);
template Matrix<double> lu_solve(const Context&, const LU<double>&, const Matrix<double>&, Op);

}  // namespace dla
