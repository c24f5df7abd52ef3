#pragma once
// Owning device memory: DeviceBuffer<T> (a flat array) and DeviceMatrix<T>
// (column-major with a leading dimension), with copies to and from the host.
// Both are move-only RAII types; constructing one in a build without CUDA
// throws NotCompiled.
#include <Eigen/Core>
#include <cstddef>
#include <limits>
#include <string>

#include "dla/core/error.hpp"
#include "dla/core/matrix_view.hpp"
#include "dla/core/types.hpp"

namespace dla {

namespace detail {
void* device_alloc(std::size_t bytes);  // throws OutOfDeviceMemory / NotCompiled
void device_free(void* p) noexcept;
// 2-D copies of `rows` elements of `elem` bytes by `cols` columns; synchronous
// with respect to the host when the call returns.
void copy_2d(void* dst, index_t dld, const void* src, index_t sld, index_t rows, index_t cols,
             std::size_t elem, int kind, stream_t stream);
enum CopyKind { kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3 };

// The element count of a device allocation, checked before any memory is
// asked for: negative, or more bytes than a size_t holds, is InvalidArgument.
inline index_t checked_count(index_t count, std::size_t elem, const std::string& what) {
  if (count < 0) throw InvalidArgument(what + ": negative element count " + std::to_string(count));
  if (std::size_t(count) > std::numeric_limits<std::size_t>::max() / elem)
    throw InvalidArgument(what + ": " + std::to_string(count) + " elements of " +
                          std::to_string(elem) + " bytes overflow the address space");
  return count;
}

// The leading dimension of a rows x cols device matrix (ld 0: max(rows, 1)),
// checked: negative sizes, ld < max(rows, 1), and ld * cols elements that
// overflow are InvalidArgument.
inline index_t checked_ld(index_t rows, index_t cols, index_t ld, std::size_t elem) {
  const std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
  if (rows < 0 || cols < 0) throw InvalidArgument("DeviceMatrix: negative dimension (" + shape + ")");
  const index_t minld = rows > 0 ? rows : 1;
  if (ld == 0) ld = minld;
  if (ld < minld)
    throw InvalidArgument("DeviceMatrix: leading dimension " + std::to_string(ld) + " < max(rows, 1) = " +
                          std::to_string(minld) + " for a " + shape + " matrix");
  if (cols > 0 && ld > std::numeric_limits<index_t>::max() / cols)
    throw InvalidArgument("DeviceMatrix: " + shape + " with leading dimension " + std::to_string(ld) +
                          ": ld * cols elements overflow a 64-bit index");
  checked_count(ld * cols, elem, "DeviceMatrix " + shape);
  return ld;
}
}  // namespace detail

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // count < 0, or more bytes than a size_t holds: InvalidArgument.
  explicit DeviceBuffer(index_t count)
      : count_(detail::checked_count(count, sizeof(T), "DeviceBuffer")) {
    if (count > 0) ptr_ = static_cast<T*>(detail::device_alloc(sizeof(T) * std::size_t(count)));
  }
  ~DeviceBuffer() { detail::device_free(ptr_); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) { detail::device_free(ptr_); ptr_ = o.ptr_; count_ = o.count_; o.ptr_ = nullptr; o.count_ = 0; }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return ptr_; }
  index_t size() const { return count_; }
  void upload(const T* host, index_t n, stream_t s = nullptr) {
    detail::copy_2d(ptr_, n, host, n, n, n > 0 ? 1 : 0, sizeof(T), detail::kHostToDevice, s);
  }
  void download(T* host, index_t n, stream_t s = nullptr) const {
    detail::copy_2d(host, n, ptr_, n, n, n > 0 ? 1 : 0, sizeof(T), detail::kDeviceToHost, s);
  }

 private:
  T* ptr_ = nullptr;
  index_t count_ = 0;
};

template <class T>
class DeviceMatrix {
 public:
  using HostMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

  DeviceMatrix() = default;
  // Uninitialized rows x cols matrix; ld defaults to max(rows, 1). Negative
  // sizes, ld < max(rows, 1) and sizes that overflow are InvalidArgument,
  // before any device memory is asked for.
  DeviceMatrix(index_t rows, index_t cols, index_t ld = 0)
      : rows_(rows), cols_(cols), ld_(detail::checked_ld(rows, cols, ld, sizeof(T))),
        buf_(ld_ * cols) {}
  // Copies a host matrix (any Eigen column-major expression) to the device.
  template <class Derived>
  explicit DeviceMatrix(const Eigen::MatrixBase<Derived>& host, stream_t s = nullptr)
      : DeviceMatrix(host.rows(), host.cols()) {
    const HostMatrix tmp = host;  // evaluates expressions, makes it contiguous
    upload(HostView<const T>(tmp.data(), tmp.rows(), tmp.cols(), tmp.rows() > 0 ? tmp.rows() : 1), s);
  }

  index_t rows() const { return rows_; }
  index_t cols() const { return cols_; }
  index_t ld() const { return ld_; }
  T* data() const { return buf_.data(); }
  DeviceView<T> view() { return {buf_.data(), rows_, cols_, ld_}; }
  DeviceView<const T> view() const { return {buf_.data(), rows_, cols_, ld_}; }

  void upload(HostView<const T> src, stream_t s = nullptr) {
    check_shape(src.rows, src.cols);
    detail::copy_2d(data(), ld_, src.data, src.ld, rows_, cols_, sizeof(T), detail::kHostToDevice, s);
  }
  void download(HostView<T> dst, stream_t s = nullptr) const {
    check_shape(dst.rows, dst.cols);
    detail::copy_2d(dst.data, dst.ld, data(), ld_, rows_, cols_, sizeof(T), detail::kDeviceToHost, s);
  }
  HostMatrix to_host(stream_t s = nullptr) const {
    HostMatrix m(rows_, cols_);
    download(HostView<T>(m.data(), rows_, cols_, rows_ > 0 ? rows_ : 1), s);
    return m;
  }

 private:
  void check_shape(index_t r, index_t c) const;
  index_t rows_ = 0, cols_ = 0, ld_ = 1;
  DeviceBuffer<T> buf_;
};

extern template class DeviceMatrix<float>;
extern template class DeviceMatrix<double>;

}  // namespace dla
