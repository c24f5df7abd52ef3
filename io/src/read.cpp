// Reading matrices and batches: C order (rows, cols) on disk -> column-major.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <string>
#include <vector>

#include "dla/io/read.hpp"
#include "h5util.hpp"

namespace dla::io {

using namespace detail;

std::vector<DatasetInfo> list_datasets(const std::string& path) {
  Silence quiet;
  Handle file = open_file(path);
  std::vector<DatasetInfo> out;
  for (const std::string& name : dataset_names(file.get())) {
    Handle ds(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT));
    if (!ds) fail(path, name, "cannot be opened: the file is corrupted", true);
    Handle type(H5Dget_type(ds.get()));
    if (!type) fail(path, name, "cannot read the type: the file is corrupted", true);
    out.push_back({name, shape_of(ds.get(), path, name), type_name(type.get())});
  }
  return out;
}

namespace {

template <class T>
hid_t native() {
  return sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

// A dataset opened for reading, its shape and type checked.
struct Source {
  Handle file, ds;
  std::vector<index_t> shape;
  std::string type;
  index_t count = 0;  // number of elements
};

// The first of `name` (absolute), prefix/name for each prefix (an environment
// variable's value, "${ORIGIN}" the file's folder), that exists; "" if none.
std::string resolve(const std::string& name, const std::vector<std::string>& prefixes,
                    const std::string& origin) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::path(name).is_absolute()) return fs::exists(name, ec) ? name : "";
  for (std::string pre : prefixes) {
    if (const auto at = pre.find("${ORIGIN}"); at != std::string::npos) pre.replace(at, 9, origin);
    const std::string cand = pre.empty() ? name : (fs::path(pre) / name).string();
    if (fs::exists(cand, ec)) return cand;
  }
  return "";
}

// Storage outside the dataset that HDF5 reads as fill values (zeros), with no
// error, when it is missing: the source files and datasets of a virtual
// dataset, and external raw data files shorter than the data they hold (a
// missing external file HDF5 does report, but it is named here first).
// `disk_bytes`: the dataset's size on disk.
void check_linked_storage(hid_t file, hid_t dcpl, const std::string& path, const std::string& dataset,
                          index_t disk_bytes) {
  const std::string origin = std::filesystem::absolute(path).parent_path().string();
  const char* vds_env = std::getenv("HDF5_VDS_PREFIX");
  const char* ext_env = std::getenv("HDF5_EXTFILE_PREFIX");
  if (H5Pget_layout(dcpl) == H5D_VIRTUAL) {
    size_t count = 0;
    if (H5Pget_virtual_count(dcpl, &count) < 0) return;
    for (size_t k = 0; k < count; ++k) {
      char file_name[4096] = "", ds_name[4096] = "";
      if (H5Pget_virtual_filename(dcpl, k, file_name, sizeof file_name) < 0 ||
          H5Pget_virtual_dsetname(dcpl, k, ds_name, sizeof ds_name) < 0)
        continue;
      const std::string src(file_name), src_ds(ds_name);
      const std::string where = "virtual dataset: its source " + src_ds + " in '" + src + "'";
      Handle other;
      hid_t src_file = file;
      if (src != ".") {
        if (src.find('%') != std::string::npos) continue;  // a printf-style pattern (unlimited mappings)
        std::vector<std::string> pre{origin, ""};
        if (vds_env) pre.insert(pre.begin(), vds_env);
        const std::string found = resolve(src, pre, origin);
        if (found.empty())
          fail(path, dataset, where + " is missing: the file does not exist (HDF5 would read zeros in "
                              "its place)");
        other = Handle(H5Fopen(found.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        if (!other) fail(path, dataset, where + " cannot be opened", true);
        src_file = other.get();
      }
      if (src_ds.find('%') != std::string::npos) continue;
      if (H5Lexists(src_file, src_ds.c_str(), H5P_DEFAULT) <= 0 ||
          H5Oexists_by_name(src_file, src_ds.c_str(), H5P_DEFAULT) <= 0)
        fail(path, dataset, where + " is missing: no such dataset (HDF5 would read zeros in its place)");
    }
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  const int next = H5Pget_external_count(dcpl);
  index_t left = disk_bytes;
  for (int k = 0; k < next && left > 0; ++k) {
    char name[4096] = "";
    off_t offset = 0;
    hsize_t size = 0;
    if (H5Pget_external(dcpl, unsigned(k), sizeof name, name, &offset, &size) < 0) return;
    std::vector<std::string> pre{""};  // HDF5 resolves them against the working folder
    if (ext_env) pre.insert(pre.begin(), ext_env);
    const std::string found = resolve(name, pre, origin);
    if (found.empty())
      fail(path, dataset, "external data file '" + std::string(name) + "' does not exist");
    const index_t used = size == H5F_UNLIMITED ? left : std::min<index_t>(left, index_t(size));
    struct stat st {};
    if (::stat(found.c_str(), &st) == 0 && index_t(st.st_size) < index_t(offset) + used)
      fail(path, dataset, "external data file '" + found + "' holds " + std::to_string(st.st_size) +
                              " bytes, the data needs bytes " + std::to_string(offset) + " to " +
                              std::to_string(index_t(offset) + used) +
                              ": truncated (HDF5 would read zeros past its end)");
    left -= used;
  }
  H5Eclear2(H5E_DEFAULT);
}

// Opens `dataset`, checks its rank is one of [min_rank, max_rank], its type is
// readable into T and its size sane; fills `info`.
template <class T>
Source open_source(const std::string& path, const std::string& dataset, int min_rank, int max_rank,
                   const char* hint, ReadInfo* info) {
  Source s;
  s.file = open_file(path);
  s.ds = open_dataset(s.file.get(), path, dataset);
  Handle type(H5Dget_type(s.ds.get()));
  if (!type) fail(path, dataset, "cannot read the type: the file is corrupted", true);
  s.type = type_name(type.get());
  s.shape = shape_of(s.ds.get(), path, dataset);
  const int rank = int(s.shape.size());
  if (rank < min_rank || rank > max_rank)
    fail(path, dataset,
         "wrong rank: shape " + shape_string(s.shape) + " has rank " + std::to_string(rank) + ", expected " +
             (min_rank == max_rank ? std::to_string(min_rank)
                                   : std::to_string(min_rank) + " or " + std::to_string(max_rank)) +
             hint);
  for (index_t d : s.shape)
    if (d == 0) fail(path, dataset, "zero-size dimension: shape " + shape_string(s.shape));
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t disk_size = H5Tget_size(type.get());
  const bool ok_float = cls == H5T_FLOAT && (disk_size == 4 || disk_size == 8);
  const bool ok_int = cls == H5T_INTEGER && disk_size <= 8;
  if (!ok_float && !ok_int)
    fail(path, dataset,
         "unsupported type " + s.type + ": only float32, float64 and integer datasets can be read");
  bool narrowed = false;
  if (sizeof(T) == 4) narrowed = disk_size >= 4 && !(ok_float && disk_size == 4);
  else narrowed = ok_int && disk_size == 8;

  // Sizes: no overflow, no allocation beyond physical memory, and a contiguous
  // dataset must fit in the file (a corrupted header must not allocate terabytes).
  index_t n = 1;
  for (index_t d : s.shape)
    if (__builtin_mul_overflow(n, d, &n)) fail(path, dataset, "shape " + shape_string(s.shape) + " is too large: the file is corrupted");
  index_t bytes = 0;
  if (__builtin_mul_overflow(n, index_t(sizeof(T)), &bytes))
    fail(path, dataset, "shape " + shape_string(s.shape) + " is too large: the file is corrupted");
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && double(bytes) > double(pages) * double(page))
    fail(path, dataset, "shape " + shape_string(s.shape) + " needs " + std::to_string(bytes) +
                            " bytes, more than this machine's memory (the file may be corrupted)");
  Handle dcpl(H5Dget_create_plist(s.ds.get()));
  if (dcpl) check_linked_storage(s.file.get(), dcpl.get(), path, dataset, n * index_t(disk_size));
  if (dcpl && H5Pget_layout(dcpl.get()) == H5D_CONTIGUOUS && H5Pget_external_count(dcpl.get()) == 0) {
    const hsize_t stored = H5Dget_storage_size(s.ds.get());
    struct stat st {};
    const index_t disk_bytes = n * index_t(disk_size);  // n * size <= n * 8 fits (checked above for T)
    if (stored > 0 && ::stat(path.c_str(), &st) == 0 && index_t(st.st_size) < disk_bytes)
      fail(path, dataset, "shape " + shape_string(s.shape) + " needs " + std::to_string(disk_bytes) +
                              " bytes but the file has " + std::to_string(st.st_size) +
                              ": the file is truncated or corrupted");
  }
  H5Eclear2(H5E_DEFAULT);
  s.count = n;
  if (info) {
    info->rank = rank;
    info->disk_type = s.type;
    info->narrowed = narrowed;
  }
  return s;
}

// A filter of the dataset's pipeline that this HDF5 library cannot apply (e.g.
// h5py's LZF without its plugin): "filter 'lzf' (id 32000)"; "" when none.
std::string unavailable_filter(hid_t ds) {
  Handle dcpl(H5Dget_create_plist(ds));
  if (!dcpl) return {};
  const int n = H5Pget_nfilters(dcpl.get());
  for (int k = 0; k < n; ++k) {
    unsigned flags = 0, config = 0;
    std::size_t nvalues = 0;
    char name[64] = "";
    const H5Z_filter_t id =
        H5Pget_filter2(dcpl.get(), unsigned(k), &flags, &nvalues, nullptr, sizeof name, name, &config);
    if (id >= 0 && H5Zfilter_avail(id) <= 0)
      return "filter '" + std::string(name) + "' (id " + std::to_string(id) + ")";
  }
  return {};
}

// The whole dataset, or (mem_space, file_space) a box of it, into out.
template <class T>
void read_into(Source& s, const std::string& path, const std::string& dataset, T* out,
               hid_t mem_space = H5S_ALL, hid_t file_space = H5S_ALL) {
  if (H5Dread(s.ds.get(), native<T>(), mem_space, file_space, H5P_DEFAULT, out) < 0) {
    const std::string corrupted = message(path, dataset, "read failed: the file is truncated or corrupted", true);
    const std::string filter = unavailable_filter(s.ds.get());
    H5Eclear2(H5E_DEFAULT);
    if (!filter.empty())
      fail(path, dataset, "read failed: the data is compressed with " + filter +
                              ", which this HDF5 library cannot decode (install its HDF5 filter plugin, "
                              "or rewrite the dataset with gzip)");
    throw IoError(corrupted);
  }
}

[[noreturn]] void no_memory(const std::string& path, const std::string& dataset, const Source& s) {
  fail(path, dataset, "out of memory reading shape " + shape_string(s.shape));
}

// Reads the dataset box by box through one buffer of at most ~kBlockBytes
// (plan_blocks, h5util.hpp) instead of a C-order copy of the whole data:
// place(buf, start, count) takes the box's elements from buf (C order).
template <class T, class Place>
void read_blocked(Source& s, const std::string& path, const std::string& dataset, Place&& place) {
  const std::vector<hsize_t> dims(s.shape.begin(), s.shape.end());
  const BlockPlan plan = plan_blocks(dims, chunk_dims(s.ds.get(), dims.size()), sizeof(T));
  std::vector<T> buf(plan.max_elements);
  Handle space(H5Dget_space(s.ds.get()));
  if (!space) fail(path, dataset, "read failed: the file is truncated or corrupted", true);
  for_each_block(plan, [&](const std::vector<hsize_t>& start, const std::vector<hsize_t>& count) {
    Handle mem = select_box(space.get(), start, count);
    if (!mem) fail(path, dataset, "read failed: the file is truncated or corrupted", true);
    read_into(s, path, dataset, buf.data(), mem.get(), space.get());
    place(buf.data(), start, count);
  });
}

}  // namespace

template <class T>
Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> read_matrix(const std::string& path, const std::string& dataset,
                                                             ReadInfo* info) {
  Silence quiet;
  Source s = open_source<T>(path, dataset, 1, 2, " (a matrix is 2-D, a vector 1-D; read 3-D datasets as a batch)",
                            info);
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  try {
    if (s.shape.size() == 1) {
      M v(s.shape[0], 1);
      read_into(s, path, dataset, v.data());
      return v;
    }
    // C order (rows, cols) into column-major, a block of rows at a time.
    M m(s.shape[0], s.shape[1]);
    using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    read_blocked<T>(s, path, dataset, [&](const T* buf, const auto& start, const auto& count) {
      m.block(index_t(start[0]), index_t(start[1]), index_t(count[0]), index_t(count[1])) =
          Eigen::Map<const RowMajor>(buf, index_t(count[0]), index_t(count[1]));
    });
    return m;
  } catch (const std::bad_alloc&) {
    no_memory(path, dataset, s);
  }
}

template <class T>
Batch<T> read_batch(const std::string& path, const std::string& dataset, ReadInfo* info) {
  Silence quiet;
  Source s = open_source<T>(path, dataset, 2, 3, " (a batch is 3-D (count, rows, cols) or 2-D (count, n))", info);
  try {
    if (s.shape.size() == 2) {  // (count, n): count vectors, already contiguous
      Batch<T> b(s.shape[0], s.shape[1], 1);
      read_into(s, path, dataset, b.data());
      return b;
    }
    const index_t count = s.shape[0], rows = s.shape[1], cols = s.shape[2];
    Batch<T> b(count, rows, cols);
    // Each member from C order (rows, cols), a block of members (or of one
    // member's rows) at a time.
    using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    read_blocked<T>(s, path, dataset, [&](const T* buf, const auto& start, const auto& count_) {
      const index_t nr = index_t(count_[1]), nc = index_t(count_[2]);
      for (hsize_t k = 0; k < count_[0]; ++k)
        b[index_t(start[0] + k)].block(index_t(start[1]), index_t(start[2]), nr, nc) =
            Eigen::Map<const RowMajor>(buf + k * hsize_t(nr * nc), nr, nc);
    });
    return b;
  } catch (const std::bad_alloc&) {
    no_memory(path, dataset, s);
  }
}

template Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic> read_matrix<float>(const std::string&,
                                                                                 const std::string&, ReadInfo*);
template Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic> read_matrix<double>(const std::string&,
                                                                                   const std::string&, ReadInfo*);
template Batch<float> read_batch<float>(const std::string&, const std::string&, ReadInfo*);
template Batch<double> read_batch<double>(const std::string&, const std::string&, ReadInfo*);

}  // namespace dla::io
