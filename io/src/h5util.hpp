#pragma once
// Private helpers of the io component: RAII handles, the HDF5 error stack
// folded into IoError, type classification, opening files and datasets with
// checked, readable errors. Not installed.
#include <hdf5.h>

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

}  // namespace dla::io::detail

#include "dla/io/types.hpp"

namespace dla::io::detail {
// Writes (or replaces) a scalar attribute on an open object.
void write_attribute(hid_t obj, const std::string& path, const std::string& dataset, const std::string& name,
                     const Attribute& value);
}  // namespace dla::io::detail
