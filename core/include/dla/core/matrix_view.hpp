#pragma once
// Non-owning column-major views: element (i, j) is data[i + j * ld].
// HostView points at host memory, DeviceView at device memory; the two are
// distinct types so one cannot be passed where the other is expected.
#include <cassert>
#include <type_traits>

#include "dla/core/types.hpp"

namespace dla {

enum class Space { Host, Device };

template <class T, Space S>
struct MatrixView {
  T* data = nullptr;
  index_t rows = 0;
  index_t cols = 0;
  index_t ld = 1;

  constexpr MatrixView() = default;
  constexpr MatrixView(T* p, index_t r, index_t c, index_t ldim)
      : data(p), rows(r), cols(c), ld(ldim) {}
  constexpr MatrixView(T* p, index_t r, index_t c) : MatrixView(p, r, c, r > 0 ? r : 1) {}

  // A view of const elements converts implicitly from a mutable one.
  template <class U>
    requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
  constexpr MatrixView(const MatrixView<U, S>& v) : data(v.data), rows(v.rows), cols(v.cols), ld(v.ld) {}

  constexpr bool empty() const { return rows == 0 || cols == 0; }
  constexpr T* ptr(index_t i, index_t j) const { return data + i + j * ld; }
  // Sub-block of r x c rows starting at (i, j).
  constexpr MatrixView block(index_t i, index_t j, index_t r, index_t c) const {
    assert(i >= 0 && j >= 0 && i + r <= rows && j + c <= cols);
    return MatrixView(ptr(i, j), r, c, ld);
  }
};

template <class T> using HostView = MatrixView<T, Space::Host>;
template <class T> using DeviceView = MatrixView<T, Space::Device>;

}  // namespace dla
