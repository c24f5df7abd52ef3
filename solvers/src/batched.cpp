// High-level batched solvers: checks, method choice, the CUDA path (one upload,
// the dla::cuda::*_batched kernels, one download) and the host path (Eigen per
// matrix, OpenMP over matrices).
#include "dla/solvers/batched.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "batched_host.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/batched_cuda.hpp"

namespace dla {
namespace {

std::string member(index_t b, index_t count) {
  return "matrix " + std::to_string(b) + " of " + std::to_string(count);
}

// lower_only: entries above the diagonal are not read (Method::Cholesky).
template <class T>
void check_finite(const Batch<T>& X, const char* routine, const char* name,
                  bool lower_only = false) {
  const index_t per = X.stride();
  const T* p = X.data();
  for (index_t b = 0; b < X.count(); ++b)
    for (index_t e = 0; e < per; ++e)
      if (!std::isfinite(p[b * per + e])) {
        const index_t i = e % X.rows(), j = e / X.rows();
        if (lower_only && i < j) continue;
        throw InvalidArgument(std::string(routine) + ": " + member(b, X.count()) + " of " + name +
                              " has a non-finite entry (" + std::to_string(p[b * per + e]) +
                              ") at (" + std::to_string(i) + "," + std::to_string(j) + ")");
      }
}

template <class T>
void check_square(const Batch<T>& A, const char* routine) {
  if (A.rows() != A.cols())
    throw DimensionMismatch(std::string(routine) + ": the matrices of A are " +
                            std::to_string(A.rows()) + "x" + std::to_string(A.cols()) +
                            ", need square");
}

// ---- device ------------------------------------------------------------
template <class T>
int dev_getrf(stream_t s, index_t n, T* A, index_t sA, std::int32_t* ipiv, std::int32_t* info,
              index_t count) {
  if constexpr (std::is_same_v<T, float>) return cuda::sgetrf_batched(s, n, A, n, sA, ipiv, info, count);
  else return cuda::dgetrf_batched(s, n, A, n, sA, ipiv, info, count);
}
template <class T>
int dev_getrs(stream_t s, index_t n, index_t k, const T* A, const std::int32_t* ipiv, T* B,
              index_t count) {
  if constexpr (std::is_same_v<T, float>)
    return cuda::sgetrs_batched(s, Op::N, n, k, A, n, n * n, ipiv, B, n, n * k, count);
  else
    return cuda::dgetrs_batched(s, Op::N, n, k, A, n, n * n, ipiv, B, n, n * k, count);
}
template <class T>
int dev_potrf(stream_t s, index_t n, T* A, std::int32_t* info, index_t count) {
  if constexpr (std::is_same_v<T, float>)
    return cuda::spotrf_batched(s, Uplo::Lower, n, A, n, n * n, info, count);
  else
    return cuda::dpotrf_batched(s, Uplo::Lower, n, A, n, n * n, info, count);
}
template <class T>
int dev_potrs(stream_t s, index_t n, index_t k, const T* A, T* B, index_t count) {
  if constexpr (std::is_same_v<T, float>)
    return cuda::spotrs_batched(s, Uplo::Lower, n, k, A, n, n * n, B, n, n * k, count);
  else
    return cuda::dpotrs_batched(s, Uplo::Lower, n, k, A, n, n * n, B, n, n * k, count);
}

const char* tname(float) { return "s"; }
const char* tname(double) { return "d"; }

// Factors F in place (LU or Cholesky-lower) and, when X is given, solves in
// place. ipiv is filled for LU.
template <class T>
void run_device(const Context& ctx, bool lu, Batch<T>& F, std::vector<std::int32_t>& ipiv,
                std::vector<std::int32_t>& info, Batch<T>* X) {
  ctx.activate();
  const stream_t s = ctx.stream();
  const index_t n = F.rows(), count = F.count();
  const index_t total = index_t(F.storage().size());
  DeviceBuffer<T> dA(total);
  DeviceBuffer<std::int32_t> dp(lu ? count * n : 0), di(count);
  dA.upload(F.data(), total, s);
  const std::string pre = tname(T());
  int rc = lu ? dev_getrf<T>(s, n, dA.data(), n * n, dp.data(), di.data(), count)
              : dev_potrf<T>(s, n, dA.data(), di.data(), count);
  if (rc != 0) throw_bad_argument((pre + (lu ? "getrf_batched" : "potrf_batched")).c_str(), rc);
  DeviceBuffer<T> dB;
  if (X != nullptr) {
    const index_t k = X->cols();
    dB = DeviceBuffer<T>(index_t(X->storage().size()));
    dB.upload(X->data(), index_t(X->storage().size()), s);
    rc = lu ? dev_getrs<T>(s, n, k, dA.data(), dp.data(), dB.data(), count)
            : dev_potrs<T>(s, n, k, dA.data(), dB.data(), count);
    if (rc != 0) throw_bad_argument((pre + (lu ? "getrs_batched" : "potrs_batched")).c_str(), rc);
    dB.download(X->data(), index_t(X->storage().size()), s);
  }
  dA.download(F.data(), total, s);
  info.assign(std::size_t(count), 0);
  di.download(info.data(), count, s);
  if (lu) {
    ipiv.assign(std::size_t(count * n), 0);
    dp.download(ipiv.data(), count * n, s);
  }
  ctx.synchronize();
}

// ---- host ----------------------------------------------------------------
template <class T>
void run_host(bool lu, Batch<T>& F, std::vector<std::int32_t>& ipiv,
              std::vector<std::int32_t>& info, Batch<T>* X) {
  const index_t n = F.rows(), count = F.count();
  info.assign(std::size_t(count), 0);
  if (lu) ipiv.assign(std::size_t(count * n), 0);
  const index_t k = X ? X->cols() : 0;
#pragma omp parallel for schedule(dynamic, 8)
  for (index_t b = 0; b < count; ++b) {
    T* a = F.data() + b * n * n;
    if (lu) {
      std::int32_t* p = ipiv.data() + b * n;
      info[std::size_t(b)] = detail::host_getrf(a, n, n > 0 ? n : 1, p);
      if (X) detail::host_getrs<T>(a, n, n > 0 ? n : 1, p, X->data() + b * n * k, k, n > 0 ? n : 1);
    } else {
      const int i = detail::host_potrf_lower(a, n, n > 0 ? n : 1);
      info[std::size_t(b)] = i;
      if (X && i == 0) detail::host_potrs_lower<T>(a, n, n > 0 ? n : 1, X->data() + b * n * k, k, n > 0 ? n : 1);
    }
  }
}

template <class T>
void run(const Context& ctx, bool lu, Batch<T>& F, std::vector<std::int32_t>& ipiv,
         std::vector<std::int32_t>& info, Batch<T>* X) {
  if (ctx.is_cuda()) run_device(ctx, lu, F, ipiv, info, X);
  else run_host(lu, F, ipiv, info, X);
}

// Every matrix symmetric (to rounding: |a_ij - a_ji| <= 64 eps max|A|) with a
// positive diagonal.
template <class T>
bool all_symmetric_positive_diagonal(const Batch<T>& A) {
  const index_t n = A.rows();
  const T eps = std::numeric_limits<T>::epsilon();
  for (index_t b = 0; b < A.count(); ++b) {
    auto a = A[b];
    const T tol = T(64) * eps * (n > 0 ? a.cwiseAbs().maxCoeff() : T(0));
    for (index_t j = 0; j < n; ++j) {
      if (!(a(j, j) > T(0))) return false;
      for (index_t i = j + 1; i < n; ++i)
        if (std::abs(a(i, j) - a(j, i)) > tol) return false;
    }
  }
  return true;
}

}  // namespace

template <class T>
BatchLU<T> lu_factor_batched(const Context& ctx, const Batch<T>& A) {
  check_square(A, "lu_factor_batched");
  check_finite(A, "lu_factor_batched", "A");
  BatchLU<T> r;
  r.factors = A;
  r.backend = ctx.backend();
  run(ctx, true, r.factors, r.ipiv, r.info, static_cast<Batch<T>*>(nullptr));
  return r;
}

template <class T>
Batch<T> solve_batched(const Context& ctx, const Batch<T>& A, const Batch<T>& B, Method method,
                       std::vector<std::int32_t>* info_out) {
  const char* routine = "solve_batched";
  check_square(A, routine);
  if (B.count() != A.count() || B.rows() != A.rows())
    throw DimensionMismatch(std::string(routine) + ": A holds " + std::to_string(A.count()) +
                            " matrices of " + std::to_string(A.rows()) + "x" +
                            std::to_string(A.cols()) + ", B holds " + std::to_string(B.count()) +
                            " of " + std::to_string(B.rows()) + "x" + std::to_string(B.cols()) +
                            " (need the same count and B rows == n)");
  if (B.cols() < 1 && B.count() > 0)
    throw InvalidArgument(std::string(routine) + ": B needs at least one right-hand side");
  if (method != Method::Auto && method != Method::LU && method != Method::Cholesky)
    throw InvalidArgument(std::string(routine) + ": unknown method (value " +
                          std::to_string(int(method)) + ")");
  check_finite(A, routine, "A", method == Method::Cholesky);
  check_finite(B, routine, "B");
  const index_t n = A.rows(), count = A.count(), k = B.cols();

  bool chol = method == Method::Cholesky;
  if (method == Method::Auto) chol = all_symmetric_positive_diagonal(A);
  Batch<T> X = B;
  Batch<T> F = A;
  std::vector<std::int32_t> ipiv, info;
  std::vector<char> used_lu(std::size_t(count), chol ? 0 : 1);
  run(ctx, !chol, F, ipiv, info, &X);

  if (method == Method::Auto && chol) {
    // Members that failed Cholesky: redo with LU.
    std::vector<index_t> redo;
    for (index_t b = 0; b < count; ++b)
      if (info[std::size_t(b)] != 0) redo.push_back(b);
    if (!redo.empty()) {
      const index_t m = index_t(redo.size());
      Batch<T> A2(m, n, n), X2(m, n, k);
      for (index_t r = 0; r < m; ++r) {
        A2[r] = A[redo[std::size_t(r)]];
        X2[r] = B[redo[std::size_t(r)]];
      }
      std::vector<std::int32_t> ipiv2, info2;
      run(ctx, true, A2, ipiv2, info2, &X2);
      for (index_t r = 0; r < m; ++r) {
        const index_t b = redo[std::size_t(r)];
        X[b] = X2[r];
        info[std::size_t(b)] = info2[std::size_t(r)];
        used_lu[std::size_t(b)] = 1;
      }
    }
  }

  for (index_t b = 0; b < count; ++b) {
    const std::int32_t i = info[std::size_t(b)];
    if (i == 0) continue;
    if (info_out != nullptr) {
      X[b].setConstant(std::numeric_limits<T>::quiet_NaN());
      continue;
    }
    const std::string who = std::string(routine) + ": " + member(b, count) + ": ";
    if (used_lu[std::size_t(b)])
      throw SingularMatrix(i, who + "U(" + std::to_string(i) + "," + std::to_string(i) +
                                  ") is exactly zero");
    throw NotPositiveDefinite(i, who + "the leading minor of order " + std::to_string(i) +
                                     " is not positive definite");
  }
  if (info_out != nullptr) *info_out = std::move(info);
  return X;
}

template BatchLU<float> lu_factor_batched<float>(const Context&, const Batch<float>&);
template BatchLU<double> lu_factor_batched<double>(const Context&, const Batch<double>&);
template Batch<float> solve_batched<float>(const Context&, const Batch<float>&, const Batch<float>&,
                                           Method, std::vector<std::int32_t>*);
template Batch<double> solve_batched<double>(const Context&, const Batch<double>&,
                                             const Batch<double>&, Method,
                                             std::vector<std::int32_t>*);

}  // namespace dla
