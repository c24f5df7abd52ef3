#pragma once
// Reading matrices, batches and attributes from HDF5 files written by h5py/numpy
// (C order, shape (rows, cols)); the results are column-major Eigen matrices.
// Every failure throws dla::IoError naming the file, the dataset and the problem.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "dla/core/batch.hpp"
#include "dla/io/types.hpp"

namespace dla::io {

// All datasets of the file, recursively, sorted by name.
std::vector<DatasetInfo> list_datasets(const std::string& path);

// Whether dla::io may be called from several threads at once: true where the
// HDF5 library was built thread-safe (Debian 12's 1.10.8 is: HDF5 then
// serializes its calls with one global lock, so concurrent calls are safe but
// not parallel). Where false, call dla::io from one thread at a time.
bool thread_safe() noexcept;

// A 2-D dataset (rows, cols) as a rows x cols matrix; a 1-D dataset (n) as n x 1
// (info->rank = 1). float32/float64/integer datasets convert to T.
template <class T>
Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> read_matrix(const std::string& path,
                                                             const std::string& dataset,
                                                             ReadInfo* info = nullptr);

// A 3-D dataset (count, rows, cols) as a batch of count rows x cols matrices;
// a 2-D dataset (count, n) as a batch of count n x 1 vectors (info->rank = 2).
template <class T>
Batch<T> read_batch(const std::string& path, const std::string& dataset, ReadInfo* info = nullptr);

// The attribute `name` of `dataset` (or of a group; "" or "/" is the file root).
// Scalars or one-element arrays of integer, floating-point or string type.
Attribute read_attribute(const std::string& path, const std::string& dataset, const std::string& name);

// The names of the attributes of `dataset` ("" or "/" = root).
std::vector<std::string> list_attributes(const std::string& path, const std::string& dataset);

extern template Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic> read_matrix<float>(
    const std::string&, const std::string&, ReadInfo*);
extern template Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic> read_matrix<double>(
    const std::string&, const std::string&, ReadInfo*);
extern template Batch<float> read_batch<float>(const std::string&, const std::string&, ReadInfo*);
extern template Batch<double> read_batch<double>(const std::string&, const std::string&, ReadInfo*);

}  // namespace dla::io
