#pragma once
// Views of Eigen column-major matrices.
#include <Eigen/Core>

#include "dla/core/matrix_view.hpp"

namespace dla {

// The host matrix type of the high-level API.
template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

template <class Derived>
auto host_view(Eigen::PlainObjectBase<Derived>& m) {
  using T = typename Derived::Scalar;
  static_assert(!Derived::IsRowMajor, "dla works on column-major matrices");
  return HostView<T>(m.data(), m.rows(), m.cols(), m.rows() > 0 ? m.rows() : 1);
}
template <class Derived>
auto host_view(const Eigen::PlainObjectBase<Derived>& m) {
  using T = typename Derived::Scalar;
  static_assert(!Derived::IsRowMajor, "dla works on column-major matrices");
  return HostView<const T>(m.data(), m.rows(), m.cols(), m.rows() > 0 ? m.rows() : 1);
}
// An Eigen::Map over a view: lets host code use Eigen on dla memory.
template <class T, Space S>
auto eigen_map(const MatrixView<T, S>& v) {
  static_assert(S == Space::Host, "only host views map to Eigen");
  using Plain = Eigen::Matrix<std::remove_const_t<T>, Eigen::Dynamic, Eigen::Dynamic>;
  using MapT = std::conditional_t<std::is_const_v<T>, const Plain, Plain>;
  return Eigen::Map<MapT, 0, Eigen::OuterStride<>>(v.data, v.rows, v.cols, Eigen::OuterStride<>(v.ld));
}

}  // namespace dla
