#pragma once
// Batch<T>: `count` matrices of rows x cols, each column-major and stored one
// after another (matrix b starts at data() + b * rows * cols). The host-side
// container of batched solvers and of 3-D HDF5 datasets.
#include <Eigen/Core>
#include <limits>
#include <string>
#include <vector>

#include "dla/core/error.hpp"
#include "dla/core/types.hpp"

namespace dla {

template <class T>
class Batch {
 public:
  using Map = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>;
  using ConstMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>;

  Batch() = default;
  Batch(index_t count, index_t rows, index_t cols)
      : count_(count), rows_(rows), cols_(cols) {
    if (count < 0 || rows < 0 || cols < 0)
      throw InvalidArgument("Batch: negative dimension (" + std::to_string(count) + " x " +
                            std::to_string(rows) + " x " + std::to_string(cols) + ")");
    const index_t kMax = std::numeric_limits<index_t>::max();
    if ((rows > 0 && cols > kMax / rows) || (rows * cols > 0 && count > kMax / (rows * cols)))
      throw InvalidArgument("Batch: " + std::to_string(count) + " x " + std::to_string(rows) +
                            " x " + std::to_string(cols) + " elements overflow a 64-bit index");
    data_.resize(std::size_t(count) * std::size_t(rows) * std::size_t(cols));
  }

  index_t count() const { return count_; }
  index_t rows() const { return rows_; }
  index_t cols() const { return cols_; }
  index_t stride() const { return rows_ * cols_; }  // elements between matrices
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  std::vector<T>& storage() { return data_; }
  const std::vector<T>& storage() const { return data_; }

  Map operator[](index_t b) { return Map(data_.data() + b * stride(), rows_, cols_); }
  ConstMap operator[](index_t b) const { return ConstMap(data_.data() + b * stride(), rows_, cols_); }

 private:
  index_t count_ = 0, rows_ = 0, cols_ = 0;
  std::vector<T> data_;
};

}  // namespace dla
