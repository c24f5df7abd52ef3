// FileWriter: transactional writes through a temporary file renamed into place.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <random>

#include "dla/io/writer.hpp"
#include "h5util.hpp"

namespace dla::io {

using namespace detail;

namespace {

// How an existing target is replaced, for the "already exists" errors: the
// CLI's flag and the library's option.
constexpr const char* kForceHint = "--force, or WriteOptions::force,";

// The temporaries of live writers, for remove_temporary_files() in a signal
// handler: fixed slots, a lock-free state per slot (0 free, 1 being filled
// or emptied, 2 holding a path). Best effort: with every slot taken a
// temporary is simply not registered.
struct TempSlot {
  std::atomic<int> state{0};
  char path[PATH_MAX];
};
TempSlot temp_slots[64];

int register_temporary(const std::string& tmp) {
  if (tmp.size() >= PATH_MAX) return -1;
  for (int k = 0; k < 64; ++k) {
    int expected = 0;
    if (temp_slots[k].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(temp_slots[k].path, tmp.c_str(), tmp.size() + 1);
      temp_slots[k].state.store(2);
      return k;
    }
  }
  return -1;
}

void unregister_temporary(int& slot) {
  if (slot >= 0) temp_slots[slot].state.store(0);
  slot = -1;
}
}  // namespace

void remove_temporary_files() noexcept {
  for (auto& s : temp_slots) {
    int expected = 2;
    if (s.state.compare_exchange_strong(expected, 1)) ::unlink(s.path);
  }
}

struct FileWriter::Impl {
  std::string path, tmp, dir;
  WriteOptions opt;
  Handle file;
  int slot = -1;  // in temp_slots while the temporary exists
  bool committed = false;
  bool failed = false;
  std::string failure;

  void check_usable(const std::string& dataset) const {
    if (committed) fail(path, dataset, "the file was already committed; nothing more can be written");
    if (failed) fail(path, dataset, "an earlier write to this file failed (" + failure + "); nothing is written");
  }

  // Runs f; any exception poisons the transaction (commit() refuses).
  template <class F>
  void guarded(const std::string& dataset, F&& f) {
    check_usable(dataset);
    try {
      f();
    } catch (const std::exception& e) {
      failed = true;
      failure = e.what();
      throw;
    } catch (...) {
      failed = true;
      failure = "unknown error";
      throw;
    }
  }

  int level(const std::string& dataset, int requested) const {
    const int l = requested < 0 ? opt.gzip_level : requested;
    if (l < 0 || l > 9) fail(path, dataset, "gzip level " + std::to_string(l) + " is not in 0..9");
    return l;
  }

  Handle create_dataset(const std::string& dataset, hid_t disk_type, const std::vector<hsize_t>& dims, int gzip) {
    const std::string n = normalize(dataset);
    if (n.empty()) fail(path, dataset, "a dataset needs a name");
    for (hsize_t d : dims)
      if (d == 0) {
        std::vector<index_t> s(dims.begin(), dims.end());
        fail(path, n, "zero-size dimension: cannot write shape " + shape_string(s));
      }
    if (exists(file.get(), n)) fail(path, n, "already exists in this file");
    H5Eclear2(H5E_DEFAULT);
    Handle space(H5Screate_simple(int(dims.size()), dims.data(), nullptr));
    Handle lcpl(H5Pcreate(H5P_LINK_CREATE));
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
    if (!space || !lcpl || !dcpl) fail(path, n, "cannot be created", true);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    if (gzip > 0) {
      if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0) fail(path, n, "gzip compression is not available in this HDF5 library");
      // Chunks of about 256K elements, whole trailing dimensions first.
      std::vector<hsize_t> chunk(dims.size());
      hsize_t budget = hsize_t(1) << 18;
      for (std::size_t k = dims.size(); k-- > 0;) {
        chunk[k] = std::max<hsize_t>(1, std::min(dims[k], budget));
        budget = std::max<hsize_t>(1, budget / chunk[k]);
      }
      if (H5Pset_chunk(dcpl.get(), int(chunk.size()), chunk.data()) < 0 || H5Pset_shuffle(dcpl.get()) < 0 ||
          H5Pset_deflate(dcpl.get(), unsigned(gzip)) < 0)
        fail(path, n, "cannot set up gzip compression", true);
    }
    Handle ds(H5Dcreate2(file.get(), n.c_str(), disk_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
    if (!ds) fail(path, n, "cannot be created", true);
    return ds;
  }

  void write(Handle& ds, const std::string& dataset, hid_t mem_type, const void* buf) {
    if (H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
      fail(path, normalize(dataset), "write failed", true);
    if (!ds.close()) fail(path, normalize(dataset), "write failed", true);
  }

  // Writes ds box by box through one buffer of at most ~kBlockBytes
  // (plan_blocks, h5util.hpp), not a C-order copy of the whole data:
  // fill(buf, start, count) puts the box's elements into buf in C order.
  template <class T, class Fill>
  void write_blocked(Handle& ds, const std::string& dataset, hid_t mem_type,
                     const std::vector<hsize_t>& dims, Fill&& fill) {
    const std::string n = normalize(dataset);
    const BlockPlan plan = plan_blocks(dims, chunk_dims(ds.get(), dims.size()), sizeof(T));
    std::vector<T> buf(plan.max_elements);
    Handle space(H5Dget_space(ds.get()));
    if (!space) fail(path, n, "write failed", true);
    for_each_block(plan, [&](const std::vector<hsize_t>& start, const std::vector<hsize_t>& count) {
      fill(buf.data(), start, count);
      Handle mem = select_box(space.get(), start, count);
      if (!mem || H5Dwrite(ds.get(), mem_type, mem.get(), space.get(), H5P_DEFAULT, buf.data()) < 0)
        fail(path, n, "write failed", true);
    });
    if (!ds.close()) fail(path, n, "write failed", true);
  }
};

namespace {
std::string errno_text(int e) { return std::strerror(e); }

// fsync(2) of a file or folder: 0, or the errno of a failed fsync. EINVAL and
// ENOTSUP (a file system that cannot sync) count as success; a folder that
// cannot be opened is skipped.
int fsync_path(const std::string& p, bool dir) {
  const int fd = ::open(p.c_str(), (dir ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  int e = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  if (e == EINVAL || e == ENOTSUP || e == EOPNOTSUPP) e = 0;
  return e;
}
}  // namespace

FileWriter::FileWriter(const std::string& path, WriteOptions opt) : impl_(std::make_unique<Impl>()) {
  Silence quiet;
  Impl& w = *impl_;
  w.path = path;
  w.opt = opt;
  if (path.empty()) throw IoError("HDF5 output: empty file name");
  if (opt.gzip_level < 0 || opt.gzip_level > 9)
    fail(path, "", "gzip level " + std::to_string(opt.gzip_level) + " is not in 0..9");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(path, "", "is a folder, not a file");
    if (!opt.force)
      fail(path, "", std::string("already exists (") + kForceHint + " overwrites it)");
  } else if (!opt.force && ::lstat(path.c_str(), &st) == 0) {
    // A dangling symbolic link: the name is taken (commit's link(2) would
    // fail, after all the work), though stat() finds nothing behind it.
    std::error_code ec;
    const std::string to = std::filesystem::read_symlink(path, ec).string();
    fail(path, "", "already exists as a symbolic link to '" + to +
                       "', which does not exist (" + kForceHint + " replaces the link)");
  }
  const std::filesystem::path p(path);
  w.dir = p.parent_path().string();
  if (w.dir.empty()) w.dir = ".";
  if (::stat(w.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    fail(path, "", "cannot write: folder '" + w.dir + "' does not exist");
  std::random_device rd;
  std::mt19937_64 gen((std::uint64_t(rd()) << 32) ^ rd());
  for (int attempt = 0;; ++attempt) {
    char rnd[17];
    std::snprintf(rnd, sizeof rnd, "%016llx", static_cast<unsigned long long>(gen()));
    const std::string suffix = ".tmp-" + std::to_string(::getpid()) + "-" + rnd;
    // The target's name may use all of NAME_MAX (255); the temporary keeps
    // as much of it as fits beside the dot and the suffix.
    std::string base = p.filename().string();
    if (1 + base.size() + suffix.size() > 255) base.resize(255 - 1 - suffix.size());
    const std::string name = "." + base + suffix;
    w.tmp = (p.parent_path() / name).string();
    const int fd = ::open(w.tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      w.slot = register_temporary(w.tmp);
      break;
    }
    const int e = errno;
    if (e == EEXIST && attempt < 16) continue;
    w.tmp.clear();
    fail(path, "", "cannot create a file in folder '" + w.dir + "': " + errno_text(e));
  }
  w.file = Handle(H5Fcreate(w.tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  if (!w.file) {
    const std::string msg = message(path, "", "cannot create the temporary file '" + w.tmp + "'", true);
    unregister_temporary(w.slot);
    ::unlink(w.tmp.c_str());
    throw IoError(msg);
  }
}

FileWriter::~FileWriter() {
  if (!impl_) return;
  Silence quiet;
  impl_->file.reset();
  unregister_temporary(impl_->slot);
  if (!impl_->committed && !impl_->tmp.empty()) ::unlink(impl_->tmp.c_str());
}

FileWriter::FileWriter(FileWriter&&) noexcept = default;
FileWriter& FileWriter::operator=(FileWriter&& o) noexcept {
  if (this != &o) {
    FileWriter dead(std::move(*this));  // cleans up our transaction
    impl_ = std::move(o.impl_);
  }
  return *this;
}

FileWriter::Impl& FileWriter::impl() const {
  if (!impl_) throw IoError("HDF5 output: this FileWriter was moved from");
  return *impl_;
}

const std::string& FileWriter::path() const { return impl().path; }
const std::string& FileWriter::temp_path() const { return impl().tmp; }

template <class T>
void FileWriter::write_matrix(const std::string& dataset, const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& m,
                              DatasetOptions o) {
  Silence quiet;
  Impl& w = impl();
  w.guarded(dataset, [&] {
    const hid_t disk = sizeof(T) == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    const hid_t mem = sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    const int gz = w.level(dataset, o.gzip_level);
    if (o.rank == 1) {
      if (m.cols() != 1)
        fail(w.path, dataset, "rank 1 needs an n x 1 matrix, got " + std::to_string(m.rows()) + " x " +
                                  std::to_string(m.cols()));
      Handle ds = w.create_dataset(dataset, disk, {hsize_t(m.rows())}, gz);
      w.write(ds, dataset, mem, m.data());
    } else if (o.rank == 2) {
      const std::vector<hsize_t> dims = {hsize_t(m.rows()), hsize_t(m.cols())};
      Handle ds = w.create_dataset(dataset, disk, dims, gz);
      // Column-major -> C order (rows, cols), a block of rows at a time.
      using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      w.write_blocked<T>(ds, dataset, mem, dims, [&](T* buf, const auto& start, const auto& count) {
        Eigen::Map<RowMajor>(buf, index_t(count[0]), index_t(count[1])) =
            m.block(index_t(start[0]), index_t(start[1]), index_t(count[0]), index_t(count[1]));
      });
    } else {
      fail(w.path, dataset, "rank " + std::to_string(o.rank) + " is not 1 or 2");
    }
  });
}

template <class T>
void FileWriter::write_batch(const std::string& dataset, const Batch<T>& b, DatasetOptions o) {
  Silence quiet;
  Impl& w = impl();
  w.guarded(dataset, [&] {
    const hid_t disk = sizeof(T) == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    const hid_t mem = sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    const int gz = w.level(dataset, o.gzip_level);
    if (o.rank == 2 && b.cols() == 1) {  // a batch of vectors: (count, n)
      Handle ds = w.create_dataset(dataset, disk, {hsize_t(b.count()), hsize_t(b.rows())}, gz);
      w.write(ds, dataset, mem, b.data());
    } else if (o.rank == 2 || o.rank == 3) {
      const std::vector<hsize_t> dims = {hsize_t(b.count()), hsize_t(b.rows()), hsize_t(b.cols())};
      Handle ds = w.create_dataset(dataset, disk, dims, gz);
      // Each member column-major -> C order (count, rows, cols), a block of
      // members (or of one member's rows) at a time.
      using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      w.write_blocked<T>(ds, dataset, mem, dims, [&](T* buf, const auto& start, const auto& count) {
        const index_t nr = index_t(count[1]), nc = index_t(count[2]);
        for (hsize_t k = 0; k < count[0]; ++k)
          Eigen::Map<RowMajor>(buf + k * hsize_t(nr * nc), nr, nc) =
              b[index_t(start[0] + k)].block(index_t(start[1]), index_t(start[2]), nr, nc);
      });
    } else {
      fail(w.path, dataset, "batch rank " + std::to_string(o.rank) + " is not 2 (vectors 2-D, others 3-D) or 3");
    }
  });
}

template <class I>
void FileWriter::write_vector_int(const std::string& dataset, const std::vector<I>& v) {
  static_assert(sizeof(I) == 4 || sizeof(I) == 8);
  Silence quiet;
  Impl& w = impl();
  w.guarded(dataset, [&] {
    const hid_t disk = sizeof(I) == 4 ? H5T_STD_I32LE : H5T_STD_I64LE;
    const hid_t mem = sizeof(I) == 4 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64;
    Handle ds = w.create_dataset(dataset, disk, {hsize_t(v.size())}, w.level(dataset, -1));
    w.write(ds, dataset, mem, v.data());
  });
}

void FileWriter::set_attribute(const std::string& dataset, const std::string& name, const Attribute& value) {
  Silence quiet;
  Impl& w = impl();
  w.guarded(dataset, [&] {
    Handle obj = open_object(w.file.get(), w.path, dataset);
    write_attribute(obj.get(), w.path, dataset, name, value);
  });
}

void FileWriter::commit() {
  Silence quiet;
  Impl& w = impl();
  w.check_usable("");
  w.guarded("", [&] {
    if (!w.file.close()) fail(w.path, "", "closing the temporary file '" + w.tmp + "' failed", true);
    // Network and quota file systems may report a failed write only here:
    // the temporary is then incomplete and must not replace anything.
    if (const int e = fsync_path(w.tmp, false))
      fail(w.path, "", "writing the temporary file '" + w.tmp + "' failed at fsync: " + errno_text(e));
    if (w.opt.force) {
      if (::rename(w.tmp.c_str(), w.path.c_str()) != 0)
        fail(w.path, "", "cannot rename the temporary file into place: " + errno_text(errno));
    } else {
      // link(2) never replaces: a file created meanwhile is not overwritten.
      if (::link(w.tmp.c_str(), w.path.c_str()) == 0) {
        ::unlink(w.tmp.c_str());
      } else {
        const int e = errno;
        struct stat st {};
        if (e == EEXIST || ::stat(w.path.c_str(), &st) == 0)
          fail(w.path, "", std::string("already exists (created while writing; ") + kForceHint +
                               " overwrites it)");
        if (::rename(w.tmp.c_str(), w.path.c_str()) != 0)  // a file system without hard links
          fail(w.path, "", "cannot rename the temporary file into place: " + errno_text(errno));
      }
    }
    unregister_temporary(w.slot);  // gone: renamed, or unlinked after link()
    (void)fsync_path(w.dir, true);  // the file is in place; a failure here cannot be undone
    w.committed = true;
    w.tmp.clear();
  });
}

template <class T>
void write_matrix(const std::string& path, const std::string& dataset,
                  const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& m, WriteOptions opt) {
  FileWriter w(path, opt);
  w.write_matrix<T>(dataset, m);
  w.commit();
}

template void FileWriter::write_matrix<float>(const std::string&, const Eigen::MatrixXf&, DatasetOptions);
template void FileWriter::write_matrix<double>(const std::string&, const Eigen::MatrixXd&, DatasetOptions);
template void FileWriter::write_batch<float>(const std::string&, const Batch<float>&, DatasetOptions);
template void FileWriter::write_batch<double>(const std::string&, const Batch<double>&, DatasetOptions);
template void FileWriter::write_vector_int<std::int32_t>(const std::string&, const std::vector<std::int32_t>&);
template void FileWriter::write_vector_int<std::int64_t>(const std::string&, const std::vector<std::int64_t>&);
template void write_matrix<float>(const std::string&, const std::string&, const Eigen::MatrixXf&, WriteOptions);
template void write_matrix<double>(const std::string&, const std::string&, const Eigen::MatrixXd&, WriteOptions);

}  // namespace dla::io
