#include "h5util.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "dla/io/read.hpp"

namespace dla::io::detail {

namespace {
// HDF5 1.10 (Debian 12 has 1.10.8) frees an object whose close failed (a
// file whose last flush hit a full disk, a quota or a file size limit) but
// keeps its ID, and H5_term_library, which HDF5 runs at exit, closes it again
// and crashes (upstream PRs #2291 and #2496, 2023). So a program that caught
// such an IoError and went on crashed when it ended. dla takes HDF5's exit
// handler over: before the library starts, H5dont_atexit() keeps HDF5 from
// registering its own, and dla's runs H5close() as HDF5's would, unless a
// close failed in this process: then it leaves HDF5 alone (the files dla
// opened are closed or abandoned by then; files a program leaves open are
// then not flushed at exit, as a program should close them itself). If
// HDF5 had started before this (another static initializer calling it), its
// own handler stays, as before.
std::atomic<bool> g_close_failed{false};

extern "C" void dla_hdf5_at_exit() {
  if (!g_close_failed.load()) H5close();
}

const bool g_exit_handler = [] {
  if (H5dont_atexit() < 0) return false;  // switched off already: not ours to run
  std::atexit(dla_hdf5_at_exit);
  return true;
}();
}  // namespace

Silence::Silence() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Silence::~Silence() {
  H5Eclear2(H5E_DEFAULT);
  H5Eset_auto2(H5E_DEFAULT, func_, data_);
}

namespace {
herr_t collect(unsigned n, const H5E_error2_t* err, void* data) {
  auto* out = static_cast<std::vector<std::string>*>(data);
  (void)n;
  if (err && err->desc && *err->desc) out->emplace_back(err->desc);
  return 0;
}
}  // namespace

std::string hdf5_message() {
  std::vector<std::string> msgs;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, &msgs);
  H5Eclear2(H5E_DEFAULT);
  // Downward: the API-level message first, the innermost cause last. The
  // innermost is the informative one ("truncated file: eof = ..."); keep it and
  // the outermost, without repeats.
  if (msgs.empty()) return {};
  std::string out = msgs.back();
  if (msgs.size() > 1 && msgs.front() != msgs.back()) out = msgs.front() + ": " + out;
  return out;
}

// HDF5's POSIX driver reports a failed system call as one long text with a
// time stamp and a line break inside, e.g. "file write failed: time = Sat Dec
// 5 08:07:27 2026\n, filename = '...', file descriptor = 3, errno = 27, error
// message = 'File too large', buf = 0x..., total write size = 619648, bytes
// this sub-write = 619648, bytes actually written = 18446744073709551615,
// offset = 0". Shown to a user as "file write failed: File too large (errno
// 27)". Any other text only loses its line breaks.
std::string tidy_hdf5_text(std::string h) {
  const std::string key = "error message = '";
  const std::size_t m = h.find(key), stamp = h.find(": time = ");
  if (m != std::string::npos && stamp != std::string::npos && stamp < m) {
    const std::size_t m0 = m + key.size(), m1 = h.find('\'', m0);
    std::string out = h.substr(0, stamp) + ": " + h.substr(m0, m1 == std::string::npos ? m1 : m1 - m0);
    if (const std::size_t e = h.find("errno = "); e != std::string::npos)
      out += " (errno " + h.substr(e + 8, h.find(',', e) - e - 8) + ")";
    h = out;
  }
  std::replace(h.begin(), h.end(), '\n', ' ');
  return h;
}

std::string message(const std::string& path, const std::string& dataset, const std::string& what,
                    bool with_hdf5) {
  std::string m = "HDF5 file '" + path + "'";
  if (!dataset.empty()) m += ", dataset '" + dataset + "'";
  m += ": " + what;
  if (with_hdf5) {
    const std::string h = tidy_hdf5_text(hdf5_message());
    if (!h.empty()) m += " (HDF5: " + h + ")";
  }
  return m;
}

void fail(const std::string& path, const std::string& dataset, const std::string& what, bool with_hdf5) {
  throw IoError(message(path, dataset, what, with_hdf5));
}

bool Handle::close() {
  if (id_ < 0) return true;
  const hid_t id = id_;
  id_ = H5I_INVALID_HID;
  herr_t r = 0;
  switch (H5Iget_type(id)) {
    case H5I_FILE: r = H5Fclose(id); break;
    case H5I_GROUP: r = H5Gclose(id); break;
    case H5I_DATASET: r = H5Dclose(id); break;
    case H5I_DATASPACE: r = H5Sclose(id); break;
    case H5I_DATATYPE: r = H5Tclose(id); break;
    case H5I_ATTR: r = H5Aclose(id); break;
    case H5I_GENPROP_LST: r = H5Pclose(id); break;
    default: r = H5Oclose(id); break;
  }
  if (r < 0) g_close_failed.store(true);
  return r >= 0;
}

std::string normalize(const std::string& name) {
  std::size_t b = 0, e = name.size();
  while (b < e && name[b] == '/') ++b;
  while (e > b && name[e - 1] == '/') --e;
  return name.substr(b, e - b);
}

std::string type_name(hid_t type) {
  const std::size_t size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_FLOAT:
      if (size == 4) return "float32";
      if (size == 8) return "float64";
      if (size == 2) return "float16";
      return "float" + std::to_string(size * 8);
    case H5T_INTEGER: {
      const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
      return std::string(is_signed ? "int" : "uint") + std::to_string(size * 8);
    }
    case H5T_COMPOUND: {
      // h5py/numpy complex: a compound of two equal floating-point members r, i.
      if (H5Tget_nmembers(type) == 2) {
        bool complex = true;
        for (unsigned k = 0; k < 2; ++k) {
          if (H5Tget_member_class(type, k) != H5T_FLOAT) complex = false;
          char* n = H5Tget_member_name(type, k);
          if (!n || std::strcmp(n, k == 0 ? "r" : "i") != 0) complex = false;
          if (n) H5free_memory(n);
        }
        if (complex) return "complex";
      }
      return "compound";
    }
    case H5T_STRING: return "string";
    case H5T_ENUM: return "enum";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    case H5T_REFERENCE: return "reference";
    case H5T_ARRAY: return "array";
    case H5T_VLEN: return "vlen";
    case H5T_TIME: return "time";
    default: return "unknown";
  }
}

Handle open_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int e = errno;
    fail(path, "", e == ENOENT ? "file does not exist" : std::string("cannot access: ") + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) fail(path, "", "is a folder, not a file");
  const htri_t is = H5Fis_hdf5(path.c_str());
  if (is < 0) fail(path, "", "cannot be read", true);
  if (is == 0) fail(path, "", "not an HDF5 file");
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f) {
    const std::string h = hdf5_message();
    // HDF5's flock failed: EWOULDBLOCK when another program holds the lock,
    // something else (ENOSYS) on file systems without flock.
    const bool lock = h.find("unable to lock file") != std::string::npos;
    const bool held = lock && h.find("errno = " + std::to_string(EWOULDBLOCK) + ",") != std::string::npos;
    const std::string why =
        held   ? "cannot be opened: it is locked by another program that has it open for writing "
                 "(close it there, or set HDF5_USE_FILE_LOCKING=FALSE)"
        : lock ? "cannot be opened: the file cannot be locked (a file system without flock support? "
                 "set HDF5_USE_FILE_LOCKING=FALSE)"
               : "cannot be opened: the file is truncated or corrupted";
    fail(path, "", why + (h.empty() ? "" : " (HDF5: " + tidy_hdf5_text(h) + ")"));
  }
  return f;
}

bool exists(hid_t loc, const std::string& name) {
  const std::string n = normalize(name);
  if (n.empty()) return true;
  std::size_t pos = 0;
  while (true) {
    const std::size_t slash = n.find('/', pos);
    const std::string part = n.substr(0, slash);
    if (H5Lexists(loc, part.c_str(), H5P_DEFAULT) <= 0) return false;
    if (H5Oexists_by_name(loc, part.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
    pos = slash + 1;
  }
}

namespace {
struct VisitData {
  std::vector<std::string> names;
};

// Hard links and soft links that lead to a dataset (h5py's f["A"] follows
// both); dangling soft links and external links are left out.
herr_t visit(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  if (info->type != H5L_TYPE_HARD && info->type != H5L_TYPE_SOFT) return 0;
  const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj < 0) { H5Eclear2(H5E_DEFAULT); return 0; }
  if (H5Iget_type(obj) == H5I_DATASET) static_cast<VisitData*>(data)->names.emplace_back(name);
  H5Oclose(obj);
  return 0;
}
}  // namespace

std::vector<std::string> dataset_names(hid_t file) {
  VisitData d;
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &d);
  H5Eclear2(H5E_DEFAULT);
  std::sort(d.names.begin(), d.names.end());
  return d.names;
}

namespace {
std::string existing_list(hid_t file) {
  const auto names = dataset_names(file);
  if (names.empty()) return "the file holds no datasets";
  std::string s = "datasets in the file: ";
  const std::size_t shown = std::min<std::size_t>(names.size(), 20);
  for (std::size_t k = 0; k < shown; ++k) s += (k ? ", " : "") + names[k];
  if (names.size() > shown) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s;
}
}  // namespace

Handle open_dataset(hid_t file, const std::string& path, const std::string& dataset) {
  const std::string n = normalize(dataset);
  if (n.empty() || !exists(file, n)) {
    H5Eclear2(H5E_DEFAULT);
    fail(path, dataset, "no such dataset (" + existing_list(file) + ")");
  }
  Handle obj(H5Oopen(file, n.c_str(), H5P_DEFAULT));
  if (!obj) fail(path, dataset, "cannot be opened: the file is corrupted", true);
  if (H5Iget_type(obj.get()) != H5I_DATASET)
    fail(path, dataset, "is a group, not a dataset (" + existing_list(file) + ")");
  return obj;
}

Handle open_object(hid_t file, const std::string& path, const std::string& dataset) {
  const std::string n = normalize(dataset);
  if (!n.empty() && !exists(file, n)) {
    H5Eclear2(H5E_DEFAULT);
    fail(path, dataset, "no such dataset or group (" + existing_list(file) + ")");
  }
  Handle obj(H5Oopen(file, n.empty() ? "/" : n.c_str(), H5P_DEFAULT));
  if (!obj) fail(path, dataset, "cannot be opened: the file is corrupted", true);
  return obj;
}

std::vector<index_t> shape_of(hid_t dataset, const std::string& path, const std::string& name) {
  Handle space(H5Dget_space(dataset));
  if (!space) fail(path, name, "cannot read the shape: the file is corrupted", true);
  const H5S_class_t cls = H5Sget_simple_extent_type(space.get());
  if (cls == H5S_NULL) return {0};  // an empty dataset: zero elements
  if (cls == H5S_SCALAR) return {};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || rank > H5S_MAX_RANK) fail(path, name, "cannot read the shape: the file is corrupted", true);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
    fail(path, name, "cannot read the shape: the file is corrupted", true);
  std::vector<index_t> out;
  for (hsize_t d : dims) {
    if (d > hsize_t(INT64_MAX)) fail(path, name, "dimension out of range: the file is corrupted");
    out.push_back(index_t(d));
  }
  return out;
}

std::size_t block_bytes() {
  if (const char* v = std::getenv("DLA_IO_BLOCK_BYTES")) {
    char* end = nullptr;
    const unsigned long long b = std::strtoull(v, &end, 10);
    if (end != v && *end == '\0' && b > 0) return std::size_t(b);
  }
  return kBlockBytes;
}

std::vector<hsize_t> chunk_dims(hid_t dataset, std::size_t rank) {
  std::vector<hsize_t> chunk(rank, 1);
  Handle dcpl(H5Dget_create_plist(dataset));
  if (dcpl && H5Pget_layout(dcpl.get()) == H5D_CHUNKED) {
    std::vector<hsize_t> c(rank, 1);
    if (H5Pget_chunk(dcpl.get(), int(rank), c.data()) == int(rank)) chunk = c;
  }
  H5Eclear2(H5E_DEFAULT);
  for (hsize_t& c : chunk) c = std::max<hsize_t>(c, 1);
  return chunk;
}

BlockPlan plan_blocks(const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk,
                      std::size_t element_bytes, std::size_t budget_bytes) {
  BlockPlan p;
  p.dims = dims;
  const std::size_t rank = dims.size();
  if (rank == 0) return p;
  // Boxes take one index at a time only above levels whose chunks are 1 deep
  // (a chunk is never split between boxes); the first level with a deeper
  // chunk is the lowest allowed.
  std::size_t lowest = rank - 1;
  for (std::size_t k = 0; k < rank; ++k)
    if (chunk[k] > 1) { lowest = k; break; }
  const double budget = double(budget_bytes) / double(element_bytes);
  std::vector<double> inner(rank, 1.0);  // elements below each level
  for (std::size_t k = rank - 1; k > 0; --k) inner[k - 1] = inner[k] * double(dims[k]);
  std::size_t level = lowest;
  for (std::size_t k = 0; k <= lowest; ++k)
    if (double(chunk[k]) * inner[k] <= budget) { level = k; break; }
  const hsize_t unit = std::min(chunk[level], dims[level]);
  const double fit = std::floor(budget / inner[level] / double(unit)) * double(unit);
  hsize_t block = fit >= double(dims[level]) ? dims[level] : std::max<hsize_t>(unit, hsize_t(fit));
  block = std::max<hsize_t>(1, std::min(block, dims[level]));
  p.level = level;
  p.block = block;
  p.max_elements = std::size_t(double(block) * inner[level]);
  return p;
}

Handle select_box(hid_t file_space, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count) {
  if (H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
    return Handle();
  return Handle(H5Screate_simple(int(count.size()), count.data(), nullptr));
}

std::string shape_string(const std::vector<index_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string s = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace dla::io::detail

bool dla::io::thread_safe() noexcept {
  hbool_t ts = false;
  return H5is_library_threadsafe(&ts) >= 0 && ts;
}
