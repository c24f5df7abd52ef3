// Host kernels of the batched solvers (see batched_host.hpp), on Eigen maps.
#include "batched_host.hpp"
#include "host_tri_solve.hpp"

#include <Eigen/Core>
#include <cmath>
#include <utility>

namespace dla::detail {
namespace {

template <class T>
using MapM = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;
template <class T>
using CMapM =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;

// |x| for the pivot search; NaN ranks below every number (as on the device).
template <class T>
T magnitude(T x) {
  return std::isnan(x) ? T(-1) : std::abs(x);
}

}  // namespace

template <class T>
int host_getrf(T* ap, index_t n, index_t lda, std::int32_t* ipiv) {
  MapM<T> a(ap, n, n, Eigen::OuterStride<>(lda));
  int info = 0;
  for (index_t k = 0; k < n; ++k) {
    index_t p = k;
    T best = magnitude(a(k, k));
    for (index_t i = k + 1; i < n; ++i) {
      const T m = magnitude(a(i, k));
      if (m > best) { best = m; p = i; }  // strict: the first maximum wins
    }
    ipiv[k] = std::int32_t(p + 1);
    const T piv = a(p, k);
    if (piv == T(0)) {
      if (info == 0) info = int(k + 1);
      continue;  // column below is zero: nothing to eliminate
    }
    if (p != k) a.row(k).swap(a.row(p));
    const index_t m = n - k - 1;
    if (m == 0) continue;
    a.col(k).tail(m) /= piv;
    a.bottomRightCorner(m, m).noalias() -= a.col(k).tail(m) * a.row(k).tail(m);
  }
  return info;
}

template <class T>
void host_getrs(const T* ap, index_t n, index_t lda, const std::int32_t* ipiv, T* bp, index_t nrhs,
                index_t ldb) {
  CMapM<T> a(ap, n, n, Eigen::OuterStride<>(lda));
  MapM<T> b(bp, n, nrhs, Eigen::OuterStride<>(ldb));
  for (index_t k = 0; k < n; ++k) {
    const index_t p = ipiv[k] - 1;
    if (p != k) b.row(k).swap(b.row(p));
  }
  a.template triangularView<Eigen::UnitLower>().solveInPlace(b);
  detail::solve_dividing(a.template triangularView<Eigen::Upper>(), a.diagonal(), b);
}

template <class T>
int host_potrf_lower(T* ap, index_t n, index_t lda) {
  MapM<T> a(ap, n, n, Eigen::OuterStride<>(lda));
  for (index_t k = 0; k < n; ++k) {
    const T d = a(k, k);
    if (!(d > T(0))) return int(k + 1);  // also catches NaN
    const T s = std::sqrt(d);
    a(k, k) = s;
    const index_t m = n - k - 1;
    if (m == 0) continue;
    a.col(k).tail(m) /= s;
    a.bottomRightCorner(m, m).template selfadjointView<Eigen::Lower>().rankUpdate(
        a.col(k).tail(m), T(-1));
  }
  return 0;
}

template <class T>
void host_potrs_lower(const T* ap, index_t n, index_t lda, T* bp, index_t nrhs, index_t ldb) {
  CMapM<T> a(ap, n, n, Eigen::OuterStride<>(lda));
  MapM<T> b(bp, n, nrhs, Eigen::OuterStride<>(ldb));
  a.template triangularView<Eigen::Lower>().solveInPlace(b);
  a.transpose().template triangularView<Eigen::Upper>().solveInPlace(b);
}

#define DLA_INST(T)                                                                        \
  template int host_getrf<T>(T*, index_t, index_t, std::int32_t*);                         \
  template void host_getrs<T>(const T*, index_t, index_t, const std::int32_t*, T*, index_t, \
                              index_t);                                                    \
  template int host_potrf_lower<T>(T*, index_t, index_t);                                  \
  template void host_potrs_lower<T>(const T*, index_t, index_t, T*, index_t, index_t);
DLA_INST(float)
DLA_INST(double)
#undef DLA_INST

}  // namespace dla::detail
