#pragma once
// Writing matrices, batches and attributes as h5py/numpy read them (C order,
// shape (rows, cols)). Writes are transactions: everything goes to a temporary
// file next to the target, which commit() renames into place; without commit()
// (an exception, an early return) the temporary is removed and the target is
// untouched. An existing target is replaced only with WriteOptions::force.
#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "dla/core/batch.hpp"
#include "dla/io/types.hpp"

namespace dla::io {

class FileWriter {
 public:
  // Throws IoError if `path` exists and !opt.force, if it is a folder, or if the
  // temporary file cannot be created in its folder (missing, not writable).
  explicit FileWriter(const std::string& path, WriteOptions opt = {});
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;
  FileWriter(FileWriter&&) noexcept;
  FileWriter& operator=(FileWriter&&) noexcept;

  // A rows x cols matrix as a 2-D dataset (rows, cols) of float32/float64;
  // with o.rank = 1 an n x 1 matrix as a 1-D dataset (n). Intermediate groups
  // ("grp/B") are created.
  template <class T>
  void write_matrix(const std::string& dataset, const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& m,
                    DatasetOptions o = {});
  // A batch as a 3-D dataset (count, rows, cols). With o.rank = 2 (the
  // default) a batch of vectors (count x n x 1) is written as a 2-D dataset
  // (count, n), which read_batch reads back as vectors; other batches stay 3-D.
  // o.rank = 3 always writes 3-D.
  template <class T>
  void write_batch(const std::string& dataset, const Batch<T>& b, DatasetOptions o = {});
  // A 1-D integer dataset (int32 or int64 on disk, as I), e.g. pivots.
  template <class I>
  void write_vector_int(const std::string& dataset, const std::vector<I>& v);
  // A scalar attribute on a dataset or group written earlier ("" or "/" = root);
  // strings are variable-length UTF-8 (h5py reads them as str). Replaces an
  // attribute of the same name.
  void set_attribute(const std::string& dataset, const std::string& name, const Attribute& value);

  // Closes the file and renames it into place. Any failed call before makes
  // commit() throw (a transaction is all or nothing) and the target untouched.
  void commit();

  const std::string& path() const;
  const std::string& temp_path() const;  // the temporary file (empty after commit)

 private:
  struct Impl;
  Impl& impl() const;  // throws IoError on a moved-from writer
  std::unique_ptr<Impl> impl_;
};

// Removes the temporary file of every FileWriter neither committed nor
// destroyed yet. Async-signal-safe (it only calls unlink(2)): for a handler of
// SIGINT/SIGTERM that then ends the process, as the dla tool installs.
void remove_temporary_files() noexcept;

// One-dataset convenience: FileWriter(path, opt).write_matrix(dataset, m); commit().
template <class T>
void write_matrix(const std::string& path, const std::string& dataset,
                  const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& m, WriteOptions opt = {});

}  // namespace dla::io
