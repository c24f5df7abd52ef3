#pragma once
// Vocabulary of the HDF5 matrix I/O: dataset descriptions, read results,
// attribute values and write options. See docs/io.md for the on-disk convention.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "dla/core/types.hpp"

namespace dla::io {

// One dataset of a file, as list_datasets() reports it.
struct DatasetInfo {
  std::string name;            // full path without the leading '/': "A", "grp/B"
  std::vector<index_t> shape;  // as on disk (C order): {rows, cols}, {n}, {count, rows, cols}
  std::string type;            // "float32", "float64", "int8".."uint64", "float16", "complex",
                               // "string", "compound", "enum", "opaque", "bitfield",
                               // "reference", "array", "vlen", "time", "unknown"
};

// What a read found on disk.
struct ReadInfo {
  int rank = 2;           // rank of the dataset on disk (1: a vector read as n x 1)
  std::string disk_type;  // as DatasetInfo::type
  bool narrowed = false;  // the disk type holds values the target type cannot represent
                          // exactly: float64/int32/uint32/int64/uint64 read into float,
                          // int64/uint64 read into double
};

// An attribute value: integers read as int64, floating-point as double,
// fixed- and variable-length strings as std::string.
using Attribute = std::variant<std::int64_t, double, std::string>;

// Options of a whole output file.
struct WriteOptions {
  bool force = false;  // replace an existing file (atomically, at commit)
  int gzip_level = 0;  // default compression of the file's datasets: 0 = none, 1..9 gzip
};

// Options of one dataset.
struct DatasetOptions {
  int rank = 2;         // 1: write an n x 1 matrix as a 1-D dataset (numpy vector)
  int gzip_level = -1;  // -1: the file's WriteOptions::gzip_level; 0 = none; 1..9 gzip
};

}  // namespace dla::io
