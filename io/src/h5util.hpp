#pragma once
// Private helpers of the io component: RAII handles, the HDF5 error stack
// folded into IoError, type classification, opening files and datasets with
// checked, readable errors. Not installed.
#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "dla/core/error.hpp"
#include "dla/core/types.hpp"

namespace dla::io::detail {

// Turns HDF5's automatic error printing off for its lifetime and restores the
// caller's handler afterwards: the library never prints to the user's terminal.
class Silence {
 public:
  Silence();
  ~Silence();
  Silence(const Silence&) = delete;
  Silence& operator=(const Silence&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// The most specific messages on the current HDF5 error stack ("" when empty);
// clears the stack.
std::string hdf5_message();

// HDF5's text as shown to a user: the POSIX driver's report of a failed
// system call shortened to its cause ("file write failed: File too large
// (errno 27)"), line breaks removed.
std::string tidy_hdf5_text(std::string h);

// "HDF5 file 'path', dataset 'ds': what" (the dataset part left out when empty),
// with " (HDF5: ...)" appended when with_hdf5 and the stack holds a message.
std::string message(const std::string& path, const std::string& dataset, const std::string& what,
                    bool with_hdf5 = false);
[[noreturn]] void fail(const std::string& path, const std::string& dataset, const std::string& what,
                       bool with_hdf5 = false);

// An owned hid_t, closed with the right H5?close.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(o.id_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) { reset(); id_ = o.id_; o.id_ = H5I_INVALID_HID; }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  // Closes now; returns false when HDF5 reports a failure.
  bool close();
  void reset() { (void)close(); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// "a", "/a", "a/" -> "a"; "" and "/" -> "" (root).
std::string normalize(const std::string& name);

// Names a dataset type the way DatasetInfo::type does.
std::string type_name(hid_t type);

// Opens an existing file read-only: missing file, folder, not HDF5, truncated
// or corrupted files all throw IoError.
Handle open_file(const std::string& path);

// True when every component of `name` exists under `loc` (no HDF5 errors).
bool exists(hid_t loc, const std::string& name);

// Opens a dataset; a missing one throws IoError naming the datasets that exist.
Handle open_dataset(hid_t file, const std::string& path, const std::string& dataset);

// Opens a dataset or group for attributes ("" = root).
Handle open_object(hid_t file, const std::string& path, const std::string& dataset);

// All dataset names under the root, sorted.
std::vector<std::string> dataset_names(hid_t file);

// The dataset's shape (throws on a null/odd dataspace).
std::vector<index_t> shape_of(hid_t dataset, const std::string& path, const std::string& name);

std::string shape_string(const std::vector<index_t>& shape);

// Block-wise transfers (the readers' and writers' transposes go through a
// bounded buffer instead of a copy of the whole dataset). A dataset of shape
// `dims` (C order) is moved in boxes of whole trailing dimensions: below
// `level` one index at a time, at `level` `block` indices (a multiple of the
// chunk's extent there, so that no chunk is written or read in pieces),
// everything after it whole. At most block_bytes() per box, except where one
// chunk's slab is larger (then one slab: never more than the whole dataset).
inline constexpr std::size_t kBlockBytes = std::size_t(16) << 20;
// kBlockBytes, or the environment's DLA_IO_BLOCK_BYTES (a positive integer;
// the tests use a few KB to run every path with many boxes).
std::size_t block_bytes();

// The dataset's chunk extents, or all ones for a contiguous (or compact) one.
std::vector<hsize_t> chunk_dims(hid_t dataset, std::size_t rank);

struct BlockPlan {
  std::vector<hsize_t> dims;
  std::size_t level = 0;
  hsize_t block = 1;
  std::size_t max_elements = 0;  // the largest box, in elements
};
BlockPlan plan_blocks(const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk,
                      std::size_t element_bytes, std::size_t budget_bytes = block_bytes());

// Calls f(start, count) for every box of the plan, in C order.
template <class F>
void for_each_block(const BlockPlan& p, F&& f) {
  const std::size_t rank = p.dims.size();
  for (hsize_t d : p.dims)
    if (d == 0) return;
  std::vector<hsize_t> start(rank, 0), count(p.dims);
  for (std::size_t k = 0; k < p.level; ++k) count[k] = 1;
  for (;;) {
    for (hsize_t b = 0; b < p.dims[p.level]; b += p.block) {
      start[p.level] = b;
      count[p.level] = std::min(p.block, p.dims[p.level] - b);
      f(start, count);
    }
    // The next index of the levels above, last one fastest.
    std::size_t k = p.level;
    while (k > 0 && ++start[k - 1] == p.dims[k - 1]) start[--k] = 0;
    if (k == 0) return;
  }
}

// Selects the box (start, count) in a dataset's file space and returns the
// matching memory space (the box's elements contiguous, C order).
Handle select_box(hid_t file_space, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count);
}  // namespace dla::io::detail

#include "dla/io/types.hpp"

namespace dla::io::detail {
// Writes (or replaces) a scalar attribute on an open object.
void write_attribute(hid_t obj, const std::string& path, const std::string& dataset, const std::string& name,
                     const Attribute& value);
}  // namespace dla::io::detail
