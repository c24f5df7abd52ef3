// io: interoperability with h5py both ways (fixtures written by
// tests/io_fixtures.py, files written here checked by it), and every read error.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "io_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace dla::test::io;
using dla::test::Mat;

// a[i, j] = i*scale + j + off, the formula of io_fixtures.py.
template <class T>
Mat<T> formula(int rows, int cols, double scale, double off) {
  Mat<T> m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = T(i * scale + j + off);
  return m;
}

template <class T>
class IoInterop : public ::testing::Test {};
using InteropPrecisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(IoInterop, InteropPrecisions);

TYPED_TEST(IoInterop, ReadsH5pyFixtures) {
  using T = TypeParam;
  DLA_IO_FIXTURES_OR_FAIL(dir);
  const std::string f = (dir / "fixtures.h5").string();
  const bool is_float = sizeof(T) == 4;
  dla::io::ReadInfo info;
  auto check = [&](const char* name, const Mat<T>& want, int rank, const char* type, bool narrowed) {
    SCOPED_TRACE(name);
    info = {};
    const Mat<T> got = dla::io::read_matrix<T>(f, name, &info);
    ASSERT_EQ(got.rows(), want.rows());
    ASSERT_EQ(got.cols(), want.cols());
    for (Eigen::Index j = 0; j < want.cols(); ++j)
      for (Eigen::Index i = 0; i < want.rows(); ++i) ASSERT_EQ(got(i, j), want(i, j)) << "(" << i << "," << j << ")";
    EXPECT_EQ(info.rank, rank);
    EXPECT_EQ(info.disk_type, type);
    EXPECT_EQ(info.narrowed, narrowed);
  };
  check("f64", formula<T>(7, 5, 100, 0.25), 2, "float64", is_float);
  check("f32", formula<T>(3, 1000, 1000, 0.5), 2, "float32", false);
  Mat<T> b(9, 1);
  for (int i = 0; i < 9; ++i) b(i, 0) = T(0.5 * i - 1.0);
  check("b", b, 1, "float64", is_float);
  check("chunked", formula<T>(300, 200, 1000, 0), 2, "float64", is_float);
  check("/grp/nested", formula<T>(2, 2, 2, 0), 2, "float32", false);
  Mat<T> i32(6, 4);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 6; ++i) i32(i, j) = T(-10 * j + i);
  check("i32", i32, 2, "int32", is_float);
  Mat<T> i64(2, 3);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i) i64(i, j) = T(std::ldexp(1.0, 40) + 3 * i + j);
  check("i64", i64, 2, "int64", true);
  check("u8", formula<T>(2, 2, 2, 1), 2, "uint8", false);
  check("be", formula<T>(3, 4, 100, 0.25), 2, "float64", is_float);  // big-endian on disk

  // A random matrix, compared with its %.17g text form.
  std::ifstream txt(dir / "rand.txt");
  Mat<double> r(6, 4);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) ASSERT_TRUE(txt >> r(i, j));
  check("rand", r.cast<T>(), 2, "float64", is_float);

  const dla::Batch<T> bt = dla::io::read_batch<T>(f, "batch", &info);
  EXPECT_EQ(info.rank, 3);
  ASSERT_EQ(bt.count(), 4);
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(Mat<T>(bt[k]) == formula<T>(3, 2, 10, 1000.0 * k)) << k;
  const dla::Batch<T> bv = dla::io::read_batch<T>(f, "batchvec", &info);
  EXPECT_EQ(info.rank, 2);
  ASSERT_EQ(bv.count(), 4);
  ASSERT_EQ(bv.rows(), 5);
  ASSERT_EQ(bv.cols(), 1);
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(Mat<T>(bv[k]) == formula<T>(5, 1, 1, 10.0 * k + 0.5)) << k;
}

TEST(IoInterop, H5pyAttributes) {
  DLA_IO_FIXTURES_OR_FAIL(dir);
  const std::string f = (dir / "fixtures.h5").string();
  EXPECT_EQ(std::get<std::string>(dla::io::read_attribute(f, "", "title")), "dla fixture");
  EXPECT_EQ(std::get<std::string>(dla::io::read_attribute(f, "", "fixed")), "fixed-len");
  EXPECT_EQ(std::get<std::int64_t>(dla::io::read_attribute(f, "/", "n")), 42);
  EXPECT_EQ(std::get<double>(dla::io::read_attribute(f, "", "tol")), 1e-6);
  EXPECT_EQ(std::get<std::int64_t>(dla::io::read_attribute(f, "f64", "i32")), -7);
  EXPECT_EQ(std::get<double>(dla::io::read_attribute(f, "f64", "arr1")), 2.5);
  expect_io_error([&] { dla::io::read_attribute(f, "f64", "arr3"); }, {f, "'f64'", "'arr3'", "holds 3 values"});
  expect_io_error([&] { dla::io::read_attribute(f, "f64", "nope"); },
                  {f, "'f64'", "'nope'", "no such attribute", "arr1, arr3, i32"});
  expect_io_error([&] { dla::io::read_attribute(f, "missing", "n"); }, {f, "'missing'", "no such dataset or group"});
}

TEST(IoInterop, ListsH5pyDatasets) {
  DLA_IO_FIXTURES_OR_FAIL(dir);
  const auto list = dla::io::list_datasets((dir / "fixtures.h5").string());
  std::map<std::string, std::pair<std::vector<dla::index_t>, std::string>> want = {
      {"b", {{9}, "float64"}},           {"batch", {{4, 3, 2}, "float64"}},
      {"be", {{3, 4}, "float64"}},
      {"batchvec", {{4, 5}, "float64"}}, {"chunked", {{300, 200}, "float64"}},
      {"complex", {{2, 2}, "complex"}},  {"compound", {{3}, "compound"}},
      {"empty", {{0, 5}, "float64"}},    {"f16", {{2, 2}, "float16"}},
      {"f32", {{3, 1000}, "float32"}},   {"f64", {{7, 5}, "float64"}},
      {"grp/nested", {{2, 2}, "float32"}}, {"i32", {{6, 4}, "int32"}},
      {"i64", {{2, 3}, "int64"}},        {"rand", {{6, 4}, "float64"}},
      {"scalar", {{}, "float64"}},       {"strings", {{2}, "string"}},
      {"u8", {{2, 2}, "uint8"}}};
  ASSERT_EQ(list.size(), want.size());
  for (const auto& d : list) {
    ASSERT_TRUE(want.count(d.name)) << d.name;
    EXPECT_EQ(d.shape, want[d.name].first) << d.name;
    EXPECT_EQ(d.type, want[d.name].second) << d.name;
  }
}

TEST(IoInterop, H5pyReadsWhatWeWrite) {
  DLA_IO_FIXTURES_OR_FAIL(dir);  // also proves h5py is importable
  const fs::path out = fresh_dir("to_h5py") / "written.h5";
  {
    dla::io::FileWriter w(out.string());
    w.write_matrix<double>("A", formula<double>(7, 5, 100, 0.25));
    w.write_matrix<float>("A32", formula<float>(3, 1000, 1000, 0.5));
    Mat<double> v(9, 1);
    for (int i = 0; i < 9; ++i) v(i, 0) = 0.5 * i - 1.0;
    w.write_matrix<double>("v", v, {.rank = 1});
    w.write_matrix<double>("v2d", v);
    w.write_matrix<float>("row", formula<float>(1, 6, 100, 0.25));
    dla::Batch<double> bt(4, 3, 2);
    for (int k = 0; k < 4; ++k) bt[k] = formula<double>(3, 2, 10, 1000.0 * k);
    w.write_batch<double>("batch", bt, {.rank = 3});
    dla::Batch<float> bv(4, 5, 1);
    for (int k = 0; k < 4; ++k) bv[k] = formula<float>(5, 1, 1, 10.0 * k + 0.5);
    w.write_batch<float>("bvec", bv, {.rank = 2});
    w.write_matrix<double>("gz", formula<double>(300, 200, 1000, 0), {.gzip_level = 5});
    w.write_vector_int<std::int32_t>("piv", {3, 1, 4, 1, 5});
    w.write_vector_int<std::int64_t>("piv64", {std::int64_t(1) << 40, -1, 0});
    w.write_matrix<double>("grp/sub/C", formula<double>(2, 3, 100, 0.25));
    w.set_attribute("", "title", std::string("written by dla"));
    w.set_attribute("", "count", std::int64_t(12));
    w.set_attribute("", "tol", 1e-6);
    w.set_attribute("A", "note", std::string("matrix A"));
    w.commit();
  }
  std::string output;
  const int rc = run_python("check '" + out.string() + "'", &output);
  std::printf("%s", output.c_str());
  EXPECT_EQ(rc, 0) << output;
}

// ----------------------------------------------------------------- read errors

TEST(IoErrors, FileLevel) {
  const fs::path d = fresh_dir("errors");
  const std::string missing = (d / "missing.h5").string();
  expect_io_error([&] { dla::io::read_matrix<double>(missing, "A"); }, {missing, "file does not exist"});
  expect_io_error([&] { dla::io::list_datasets(missing); }, {missing, "file does not exist"});
  const std::string text = (d / "text.h5").string();
  std::ofstream(text) << "this is not an HDF5 file\n";
  expect_io_error([&] { dla::io::read_matrix<float>(text, "A"); }, {text, "not an HDF5 file"});
  expect_io_error([&] { dla::io::read_matrix<float>(d.string(), "A"); }, {d.string(), "is a folder"});
  // The HDF5 signature followed by garbage.
  const std::string garbage = (d / "garbage.h5").string();
  {
    std::ofstream g(garbage, std::ios::binary);
    g.write("\x89HDF\r\n\x1a\n", 8);
    for (int k = 0; k < 4000; ++k) g.put(char(k * 37 + 11));
  }
  expect_io_error([&] { dla::io::read_matrix<double>(garbage, "A"); }, {garbage});
}

TEST(IoErrors, DatasetLevel) {
  DLA_IO_FIXTURES_OR_FAIL(dir);
  const std::string f = (dir / "fixtures.h5").string();
  expect_io_error([&] { dla::io::read_matrix<double>(f, "nope"); },
                  {f, "'nope'", "no such dataset", "datasets in the file: b, batch, batchvec", "grp/nested"});
  expect_io_error([&] { dla::io::read_matrix<double>(f, "grp"); }, {f, "'grp'", "is a group"});
  expect_io_error([&] { dla::io::read_matrix<double>(f, "grp/nope/x"); }, {f, "'grp/nope/x'", "no such dataset"});
  expect_io_error([&] { dla::io::read_matrix<double>(f, "batch"); },
                  {f, "'batch'", "wrong rank", "(4, 3, 2)", "rank 3"});
  expect_io_error([&] { dla::io::read_matrix<double>(f, "scalar"); }, {f, "'scalar'", "wrong rank", "scalar"});
  expect_io_error([&] { dla::io::read_batch<float>(f, "b"); }, {f, "'b'", "wrong rank", "(9,)"});
  expect_io_error([&] { dla::io::read_matrix<double>(f, "empty"); },
                  {f, "'empty'", "zero-size dimension", "(0, 5)"});
  for (const char* t : {"complex", "strings", "compound", "f16"}) {
    const std::string type = std::string(t) == "strings" ? "string" : std::string(t) == "f16" ? "float16" : t;
    expect_io_error([&] { dla::io::read_matrix<float>(f, t); },
                    {f, std::string("'") + t + "'", "unsupported type " + type, "only float32, float64 and integer"});
  }
}

TEST(IoErrors, TruncatedAndCorrupted) {
  DLA_IO_FIXTURES_OR_FAIL(dir);
  const fs::path d = fresh_dir("trunc");
  const fs::path src = dir / "fixtures.h5";
  for (double frac : {0.9, 0.5, 0.05}) {
    const fs::path t = d / ("trunc" + std::to_string(int(frac * 100)) + ".h5");
    fs::copy_file(src, t);
    fs::resize_file(t, std::uintmax_t(double(fs::file_size(src)) * frac));
    expect_io_error([&] { dla::io::read_matrix<double>(t.string(), "chunked"); }, {t.string()});
    expect_io_error([&] { dla::io::list_datasets(t.string()); }, {t.string()});
  }
  std::string m;
  expect_io_error([&] { dla::io::read_matrix<double>((d / "trunc50.h5").string(), "f64"); },
                  {"truncated or corrupted"}, &m);
  // Headers claiming far more data than the file holds: an IoError, no huge allocation.
  for (const char* name : {"corrupt_dims.h5", "corrupt_huge.h5"}) {
    const std::string c = (dir / name).string();
    expect_io_error([&] { dla::io::read_matrix<double>(c, "A"); }, {c, "'A'"});
    expect_io_error([&] { dla::io::read_matrix<float>(c, "A"); }, {c, "'A'"});
  }
  // A damaged gzip chunk: the read fails with HDF5's reason folded in.
  const std::string gz = (dir / "corrupt_gzip.h5").string();
  expect_io_error([&] { dla::io::read_matrix<double>(gz, "A"); }, {gz, "'A'", "read failed", "HDF5:"});
}

TEST(IoErrors, UnavailableFilterNamed) {
  DLA_IO_FIXTURES_OR_FAIL(dir);
  const std::string f = (dir / "lzf.h5").string();
  try {  // an LZF plugin installed: the data reads correctly
    EXPECT_TRUE(dla::io::read_matrix<double>(f, "A") == formula<double>(40, 30, 100, 0.25));
    std::printf("  (an LZF plugin is installed: lzf.h5 read)\n");
  } catch (const dla::IoError&) {  // none: the message says so, and does not blame the file
    std::string m;
    expect_io_error([&] { dla::io::read_matrix<double>(f, "A"); }, {f, "'A'", "filter 'lzf'", "32000"}, &m);
    EXPECT_EQ(m.find("corrupted"), std::string::npos) << m;
  }
}

TEST(IoErrors, MissingLinkedStorageIsNotReadAsZeros) {
  // A virtual dataset whose source file or dataset is gone, and an external
  // raw file that is truncated: HDF5 reads zeros there without an error, so
  // the reader refuses them by name. The intact ones read their values.
  DLA_IO_FIXTURES_OR_FAIL(dir);
  const Mat<double> want = formula<double>(3, 4, 100, 0.25);
  const std::string v = (dir / "vds.h5").string(), e = (dir / "ext.h5").string();
  EXPECT_TRUE(dla::io::read_matrix<double>(v, "V") == want);
  EXPECT_TRUE(dla::io::read_matrix<double>(e, "E") == want);
  expect_io_error([&] { dla::io::read_matrix<double>(v, "V_gone_file"); },
                  {v, "'V_gone_file'", "virtual dataset", "gone.h5", "does not exist"});
  expect_io_error([&] { dla::io::read_matrix<float>(v, "V_gone_dataset"); },
                  {v, "'V_gone_dataset'", "virtual dataset", "nope", "no such dataset"});
  expect_io_error([&] { dla::io::read_matrix<double>(e, "E_short"); },
                  {e, "'E_short'", "ext_short.bin", "holds 32 bytes", "truncated"});
  expect_io_error([&] { dla::io::read_matrix<double>(e, "E_gone"); },
                  {e, "'E_gone'", "gone.bin", "does not exist"});
}

TEST(IoErrors, LockedFileIsNotCalledCorrupted) {
  // A program with the file open for writing (h5py's File(..., 'a') in a
  // notebook) holds HDF5's exclusive flock on it; a read is refused, and the
  // message says why instead of blaming the file.
  const fs::path d = fresh_dir("locked");
  const std::string f = (d / "l.h5").string();
  const Mat<double> a = formula<double>(3, 3, 10, 0.5);
  dla::io::write_matrix<double>(f, "A", a);
  const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const char* locking = std::getenv("HDF5_USE_FILE_LOCKING");
  if (locking && std::string(locking) == "FALSE") {  // HDF5 does not lock: the read works
    EXPECT_TRUE(dla::io::read_matrix<double>(f, "A") == a);
  } else {
    std::string m;
    expect_io_error([&] { dla::io::read_matrix<double>(f, "A"); },
                    {f, "locked by another program", "HDF5_USE_FILE_LOCKING=FALSE"}, &m);
    EXPECT_EQ(m.find("corrupted"), std::string::npos) << m;
  }
  ::close(fd);
  EXPECT_TRUE(dla::io::read_matrix<double>(f, "A") == a);  // lock released: reads
}

TEST(IoErrors, Hdf5StackNotPrinted) {
  DLA_IO_FIXTURES_OR_FAIL(dir);
  const fs::path d = fresh_dir("stderr");
  const fs::path t = d / "t.h5";
  fs::copy_file(dir / "fixtures.h5", t);
  fs::resize_file(t, fs::file_size(t) / 2);
  const std::string log = (d / "stderr.txt").string();
  std::fflush(stderr);
  const int saved = ::dup(2);
  std::FILE* sink = std::fopen(log.c_str(), "w");
  ::dup2(::fileno(sink), 2);
  int thrown = 0;
  for (const std::string ds : {"f64", "nope"}) {
    try { dla::io::read_matrix<double>(t.string(), ds); } catch (const dla::IoError&) { ++thrown; }
    try { dla::io::read_matrix<double>((dir / "fixtures.h5").string(), ds == "f64" ? "complex" : ds); }
    catch (const dla::IoError&) { ++thrown; }
  }
  try { dla::io::FileWriter w((d / "w.h5").string()); w.write_matrix<double>("A", Mat<double>::Ones(2, 2));
        w.write_matrix<double>("A", Mat<double>::Ones(2, 2)); } catch (const dla::IoError&) { ++thrown; }
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::fclose(sink);
  EXPECT_EQ(thrown, 5);
  EXPECT_EQ(fs::file_size(log), 0u) << "HDF5 printed to stderr";
}

}  // namespace
