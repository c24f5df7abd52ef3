// io: round trips through HDF5 files (both precisions, odd shapes, batches,
// attributes, gzip, blockwise transfers, threads, peak memory). The write
// rules (overwrite, transactions, failures) are in io_write_test.cpp.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>

#include "io_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace dla::test::io;
using dla::test::Mat;
using dla::test::random_matrix;

template <class T>
class IoRoundTrip : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(IoRoundTrip, Precisions);

const char* disk_name(float) { return "float32"; }
const char* disk_name(double) { return "float64"; }

TYPED_TEST(IoRoundTrip, OddShapesExact) {
  using T = TypeParam;
  const fs::path dir = fresh_dir("shapes");
  const std::vector<std::pair<int, int>> shapes = {{1, 1}, {1, 7}, {9, 1}, {3, 1000}, {17, 13}, {1000, 3}};
  const std::string file = (dir / "m.h5").string();
  std::vector<Mat<T>> ms;
  {
    dla::io::FileWriter w(file);
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      ms.push_back(random_matrix<T>(shapes[k].first, shapes[k].second, 100 + k));
      w.write_matrix<T>("m" + std::to_string(k), ms.back());
    }
    w.commit();
  }
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    dla::io::ReadInfo info;
    info.rank = -1;
    const Mat<T> r = dla::io::read_matrix<T>(file, "m" + std::to_string(k), &info);
    ASSERT_EQ(r.rows(), shapes[k].first);
    ASSERT_EQ(r.cols(), shapes[k].second);
    EXPECT_TRUE(r == ms[k]) << "shape " << shapes[k].first << "x" << shapes[k].second;
    EXPECT_EQ(info.rank, 2);
    EXPECT_EQ(info.disk_type, disk_name(T{}));
    EXPECT_FALSE(info.narrowed);
  }
  // list_datasets reports the C-order shape (rows, cols).
  const auto list = dla::io::list_datasets(file);
  ASSERT_EQ(list.size(), shapes.size());
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    EXPECT_EQ(list[k].name, "m" + std::to_string(k));
    EXPECT_EQ(list[k].shape, (std::vector<dla::index_t>{shapes[k].first, shapes[k].second}));
    EXPECT_EQ(list[k].type, disk_name(T{}));
  }
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"m.h5"});  // no temporary left
}

TYPED_TEST(IoRoundTrip, VectorKeepsRank) {
  using T = TypeParam;
  const fs::path dir = fresh_dir("vec");
  const std::string file = (dir / "v.h5").string();
  const Mat<T> v = random_matrix<T>(11, 1, 5);
  dla::io::FileWriter w(file);
  w.write_matrix<T>("v1", v, {.rank = 1});
  w.write_matrix<T>("v2", v);
  w.commit();
  dla::io::ReadInfo i1, i2;
  EXPECT_TRUE(dla::io::read_matrix<T>(file, "v1", &i1) == v);
  EXPECT_TRUE(dla::io::read_matrix<T>(file, "v2", &i2) == v);
  EXPECT_EQ(i1.rank, 1);
  EXPECT_EQ(i2.rank, 2);
  const auto list = dla::io::list_datasets(file);
  EXPECT_EQ(list[0].shape, std::vector<dla::index_t>{11});
  EXPECT_EQ(list[1].shape, (std::vector<dla::index_t>{11, 1}));
}

TYPED_TEST(IoRoundTrip, Batches) {
  using T = TypeParam;
  const fs::path dir = fresh_dir("batch");
  const std::string file = (dir / "b.h5").string();
  dla::Batch<T> b(5, 3, 7), v(4, 6, 1);
  for (dla::index_t k = 0; k < b.count(); ++k) b[k] = random_matrix<T>(3, 7, 50 + k);
  for (dla::index_t k = 0; k < v.count(); ++k) v[k] = random_matrix<T>(6, 1, 80 + k);
  dla::io::FileWriter w(file);
  w.write_batch<T>("grp/b3", b, {.rank = 3});
  w.write_batch<T>("grp/v2", v, {.rank = 2});
  w.write_batch<T>("v3", v, {.rank = 3});
  w.write_batch<T>("dflt3", b);  // the default rank 2 keeps a matrix batch 3-D
  w.write_batch<T>("dflt2", v);  // ... and writes a batch of vectors 2-D
  w.commit();
  dla::io::ReadInfo info;
  const dla::Batch<T> rb = dla::io::read_batch<T>(file, "grp/b3", &info);
  EXPECT_EQ(info.rank, 3);
  ASSERT_EQ(rb.count(), 5);
  ASSERT_EQ(rb.rows(), 3);
  ASSERT_EQ(rb.cols(), 7);
  for (dla::index_t k = 0; k < 5; ++k) EXPECT_TRUE(Mat<T>(rb[k]) == Mat<T>(b[k])) << "matrix " << k;
  for (const char* name : {"grp/v2", "v3"}) {
    const dla::Batch<T> rv = dla::io::read_batch<T>(file, name, &info);
    EXPECT_EQ(info.rank, std::string(name) == "v3" ? 3 : 2);
    ASSERT_EQ(rv.count(), 4);
    ASSERT_EQ(rv.rows(), 6);
    ASSERT_EQ(rv.cols(), 1);
    EXPECT_TRUE(rv.storage() == v.storage()) << name;
  }
  EXPECT_TRUE(dla::io::read_batch<T>(file, "dflt3").storage() == b.storage());
  EXPECT_TRUE(dla::io::read_batch<T>(file, "dflt2").storage() == v.storage());
  const auto list = dla::io::list_datasets(file);
  ASSERT_EQ(list.size(), 5u);
  EXPECT_EQ(list[0].name, "dflt2");
  EXPECT_EQ(list[0].shape, (std::vector<dla::index_t>{4, 6}));
  EXPECT_EQ(list[1].shape, (std::vector<dla::index_t>{5, 3, 7}));
  EXPECT_EQ(list[2].name, "grp/b3");
  EXPECT_EQ(list[2].shape, (std::vector<dla::index_t>{5, 3, 7}));
  EXPECT_EQ(list[3].shape, (std::vector<dla::index_t>{4, 6}));
  EXPECT_EQ(list[4].shape, (std::vector<dla::index_t>{4, 6, 1}));
}

TEST(IoRoundTrip, CrossPrecision) {
  const fs::path dir = fresh_dir("cross");
  const std::string file = (dir / "c.h5").string();
  Mat<double> d = random_matrix<double>(6, 5, 1);
  d(0, 0) = 1e300;  // out of float range
  const Mat<float> f = random_matrix<float>(4, 3, 2);
  dla::io::FileWriter w(file);
  w.write_matrix<double>("d", d);
  w.write_matrix<float>("f", f);
  w.commit();
  dla::io::ReadInfo info;
  const Mat<float> df = dla::io::read_matrix<float>(file, "d", &info);
  EXPECT_TRUE(info.narrowed);
  EXPECT_EQ(info.disk_type, "float64");
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 6; ++i)
      if (i || j) {
        EXPECT_EQ(df(i, j), float(d(i, j))) << i << "," << j;
      }
  EXPECT_TRUE(std::isinf(df(0, 0)) && df(0, 0) > 0) << df(0, 0);  // out of range -> inf
  const Mat<double> fd = dla::io::read_matrix<double>(file, "f", &info);
  EXPECT_FALSE(info.narrowed);
  EXPECT_TRUE(fd == f.cast<double>());
}

TEST(IoRoundTrip, Attributes) {
  const fs::path dir = fresh_dir("attr");
  const std::string file = (dir / "a.h5").string();
  dla::io::FileWriter w(file);
  w.write_matrix<double>("grp/A", random_matrix<double>(2, 2, 3));
  w.set_attribute("", "n", std::int64_t(-1234567890123));
  w.set_attribute("/", "tol", 2.5e-7);
  w.set_attribute("", "title", std::string("héllo, dla"));
  w.set_attribute("grp/A", "kind", std::string("matrix"));
  w.set_attribute("grp", "g", 1.0);
  w.set_attribute("grp/A", "kind", std::string("replaced"));  // replaces
  w.set_attribute("", "empty", std::string());
  w.commit();
  EXPECT_EQ(std::get<std::int64_t>(dla::io::read_attribute(file, "", "n")), -1234567890123);
  EXPECT_EQ(std::get<double>(dla::io::read_attribute(file, "/", "tol")), 2.5e-7);
  EXPECT_EQ(std::get<std::string>(dla::io::read_attribute(file, "", "title")), "héllo, dla");
  EXPECT_EQ(std::get<std::string>(dla::io::read_attribute(file, "grp/A", "kind")), "replaced");
  EXPECT_EQ(std::get<double>(dla::io::read_attribute(file, "grp", "g")), 1.0);
  EXPECT_EQ(std::get<std::string>(dla::io::read_attribute(file, "", "empty")), "");
  EXPECT_EQ(dla::io::list_attributes(file, ""), (std::vector<std::string>{"empty", "n", "title", "tol"}));
  EXPECT_EQ(dla::io::list_attributes(file, "grp/A"), std::vector<std::string>{"kind"});
}

TEST(IoRoundTrip, GzipCompresses) {
  const fs::path dir = fresh_dir("gzip");
  const int n = 400;
  Mat<double> m(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) m(i, j) = double((i + j) % 7);  // very compressible
  const std::string raw = (dir / "raw.h5").string(), gz = (dir / "gz.h5").string(),
                    one = (dir / "one.h5").string();
  dla::io::write_matrix<double>(raw, "m", m);
  dla::io::write_matrix<double>(gz, "m", m, {.gzip_level = 6});
  {
    dla::io::FileWriter w(one);
    w.write_matrix<double>("plain", m, {.gzip_level = 0});
    w.write_matrix<double>("packed", m, {.gzip_level = 9});
    dla::Batch<float> b(3, 50, 40);
    for (auto& x : b.storage()) x = 1.0f;
    w.write_batch<float>("batch", b, {.rank = 3, .gzip_level = 4});
    w.commit();
    EXPECT_TRUE(dla::io::read_batch<float>(one, "batch").storage() == b.storage());
  }
  EXPECT_GT(fs::file_size(raw), std::uintmax_t(n) * n * 8);
  EXPECT_LT(fs::file_size(gz), std::uintmax_t(n) * n * 8 / 10);
  EXPECT_TRUE(dla::io::read_matrix<double>(gz, "m") == m);
  EXPECT_TRUE(dla::io::read_matrix<double>(one, "plain") == m);
  EXPECT_TRUE(dla::io::read_matrix<double>(one, "packed") == m);
}

TEST(IoRoundTrip, IntegerVectors) {
  const fs::path dir = fresh_dir("ints");
  const std::string file = (dir / "p.h5").string();
  dla::io::FileWriter w(file);
  w.write_vector_int<std::int32_t>("ipiv", {3, 1, 2, 2});
  w.write_vector_int<std::int64_t>("big", {std::int64_t(1) << 40, -5});
  w.commit();
  const auto list = dla::io::list_datasets(file);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].type, "int64");
  EXPECT_EQ(list[1].type, "int32");
  dla::io::ReadInfo info;
  const Mat<double> p = dla::io::read_matrix<double>(file, "ipiv", &info);
  EXPECT_EQ(info.rank, 1);
  EXPECT_FALSE(info.narrowed);
  EXPECT_TRUE(p == (Mat<double>(4, 1) << 3, 1, 2, 2).finished());
  const Mat<double> b = dla::io::read_matrix<double>(file, "big", &info);
  EXPECT_TRUE(info.narrowed);  // int64 into double
  EXPECT_EQ(b(0, 0), std::ldexp(1.0, 40));
}

// Reads and writes go through a bounded buffer, box by box (plan_blocks,
// io/src/h5util.hpp). With boxes of a few KB (DLA_IO_BLOCK_BYTES) every path
// takes many boxes: contiguous and gzip-chunked datasets (boxes never split
// a chunk), a box of part of one row (a row longer than the budget), single
// rows and columns, batches by members and by one member's rows, and reads
// that convert (float64 on disk into float). The values must be those of the
// one-box transfers, bit for bit, both ways.
TEST(IoRoundTrip, BlockwiseTransfersAreExact) {
  const fs::path dir = fresh_dir("blocks");
  const std::vector<std::pair<int, int>> shapes = {{1, 1}, {1, 300}, {300, 1}, {37, 53}, {129, 513}, {2000, 300}};
  const std::vector<std::array<int, 3>> batches = {{1, 300, 200}, {7, 37, 53}, {3, 1, 70}, {40, 100, 100}};
  for (int gzip : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "gzip " << gzip);
    std::vector<Mat<double>> ms;
    std::vector<dla::Batch<double>> bs;
    for (auto [r, c] : shapes) ms.push_back(random_matrix<double>(r, c, 900 + r + c));
    for (auto [k, r, c] : batches) {
      dla::Batch<double> b(k, r, c);
      for (dla::index_t i = 0; i < k; ++i) b[i] = random_matrix<double>(r, c, 950 + i);
      bs.push_back(std::move(b));
    }
    const std::string one = (dir / ("one" + std::to_string(gzip) + ".h5")).string(),
                      many = (dir / ("many" + std::to_string(gzip) + ".h5")).string();
    auto write = [&](const std::string& file) {
      dla::io::FileWriter w(file);
      for (std::size_t i = 0; i < ms.size(); ++i)
        w.write_matrix<double>("m" + std::to_string(i), ms[i], {.gzip_level = gzip});
      for (std::size_t i = 0; i < bs.size(); ++i)
        w.write_batch<double>("b" + std::to_string(i), bs[i], {.rank = 3, .gzip_level = gzip});
      w.commit();
    };
    write(one);
    {
      const dla::test::ScopedEnv tiny("DLA_IO_BLOCK_BYTES", "4096");
      write(many);
    }
    for (const char* budget : {"", "4096", "100"}) {
      SCOPED_TRACE(::testing::Message() << "DLA_IO_BLOCK_BYTES '" << budget << "'");
      // "": not a positive integer, so the default budget.
      const dla::test::ScopedEnv env("DLA_IO_BLOCK_BYTES", budget);
      for (const std::string& file : {one, many}) {
        for (std::size_t i = 0; i < ms.size(); ++i) {
          const std::string name = "m" + std::to_string(i);
          EXPECT_TRUE(dla::io::read_matrix<double>(file, name) == ms[i]) << file << " " << name;
          EXPECT_TRUE(dla::io::read_matrix<float>(file, name) == ms[i].cast<float>()) << file << " " << name;
        }
        for (std::size_t i = 0; i < bs.size(); ++i) {
          const std::string name = "b" + std::to_string(i);
          EXPECT_TRUE(dla::io::read_batch<double>(file, name).storage() == bs[i].storage()) << file << " " << name;
          const dla::Batch<float> f = dla::io::read_batch<float>(file, name);
          for (dla::index_t k = 0; k < bs[i].count(); ++k)
            ASSERT_TRUE(Mat<float>(f[k]) == Mat<double>(bs[i][k]).cast<float>()) << file << " " << name << " " << k;
        }
      }
    }
  }
}

// dla::io from several threads at once (HDF5 serializes its calls when it is
// built thread-safe, as Debian 12's is; dla::io::thread_safe()
// says so). Each thread writes its own file through a FileWriter (two
// datasets, gzip on every other round, an attribute), commits, reads it
// back, and reads a file that all threads share; every value must come back
// exactly. A guard: state of dla's own that two threads share (a buffer, the
// temporary files' registry) would show up here as wrong data or errors.
TEST(IoRoundTrip, ConcurrentThreads) {
  if (!dla::io::thread_safe())
    GTEST_SKIP() << "this HDF5 library was built without thread safety: dla::io is for one thread "
                    "at a time here";
  const fs::path dir = fresh_dir("threads");
  const std::string shared = (dir / "shared.h5").string();
  const Mat<double> s = random_matrix<double>(70, 50, 3);
  dla::io::write_matrix<double>(shared, "S", s);
  constexpr int kThreads = 8, kRounds = 25;
  std::atomic<int> wrong{0}, errors{0};
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const std::string file = (dir / ("t" + std::to_string(t) + ".h5")).string();
      for (int r = 0; r < kRounds; ++r) {
        try {
          const Mat<float> a = random_matrix<float>(20 + t, 30 + r, std::uint64_t(100 * t + r));
          const dla::Batch<double> b = dla::test::random_batch<double>(3, 4 + t, 5, std::uint64_t(t + 1));
          {
            dla::io::FileWriter w(file, {.force = true, .gzip_level = r % 2});
            w.write_matrix<float>("A", a);
            w.write_batch<double>("B", b);
            w.set_attribute("A", "round", dla::io::Attribute(std::int64_t(r)));
            w.commit();
          }
          bool same = dla::io::read_matrix<float>(file, "A") == a &&
                      dla::io::read_matrix<double>(shared, "S") == s;
          const dla::Batch<double> rb = dla::io::read_batch<double>(file, "B");
          for (dla::index_t i = 0; i < b.count(); ++i) same = same && rb[i] == b[i];
          const auto round = dla::io::read_attribute(file, "A", "round");
          same = same && std::holds_alternative<std::int64_t>(round) && std::get<std::int64_t>(round) == r;
          if (!same) ++wrong;
        } catch (const std::exception& e) {
          ++errors;
          if (first_error[std::size_t(t)].empty()) first_error[std::size_t(t)] = e.what();
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0) << "rounds with data that did not come back exactly";
  EXPECT_EQ(errors.load(), 0);
  for (const std::string& e : first_error)
    if (!e.empty()) ADD_FAILURE() << e;
}

// The resident memory a write or a read adds beyond the data itself: at most
// one bounded buffer (16 MB), not a C-order copy of the whole matrix or batch
// (the transposes used to make one, which doubled the peak of every large
// write and read: dla factor, solve, gen). Each transfer of 128 MB of float64
// runs in a child process of its own (fork: its peak resident size starts at
// its current one), the data made before the first getrusage: the growth of
// ru_maxrss over the transfer, in MB, is the child's exit status. A read's
// growth includes the 128 MB it returns.
int peak_growth_mb(const std::function<void()>& setup, const std::function<void()>& transfer) {
  const int status = run_in_child(
      [&] {
        auto peak_mb = [] {
          struct rusage u {};
          ::getrusage(RUSAGE_SELF, &u);
          return double(u.ru_maxrss) / 1024.0;
        };
        try {
          setup();
          const double p0 = peak_mb();
          transfer();
          return int(std::min(254.0, std::max(0.0, peak_mb() - p0)));
        } catch (const std::exception& e) {
          std::fprintf(stderr, "%s\n", e.what());
          return 255;
        }
      },
      false);
  return status < 0 || status >= 255 ? -1 : status;  // 255: it threw; >= 1000: a signal
}

TEST(IoRoundTrip, LargeTransfersNeedNoFullCopy) {
  const fs::path dir = fresh_dir("peak");
  const std::string mfile = (dir / "m.h5").string(), bfile = (dir / "b.h5").string();
  const int n = 4096;  // 128 MB of float64
  Mat<double> m;
  dla::Batch<double> b;
  auto make_m = [&] { m = Mat<double>::Random(n, n); };
  auto make_b = [&] {
    b = dla::Batch<double>(4, n / 2, n / 2);  // 4 x 32 MB
    for (auto& x : b.storage()) x = 0.5;
  };
  const int wm = peak_growth_mb(make_m, [&] { dla::io::write_matrix<double>(mfile, "m", m); });
  const int wb = peak_growth_mb(make_b, [&] {
    dla::io::FileWriter w(bfile);
    w.write_batch<double>("b", b, {.rank = 3});
    w.commit();
  });
  ASSERT_TRUE(fs::exists(mfile) && fs::exists(bfile)) << "the children's writes failed";
  const int rm = peak_growth_mb([] {}, [&] { (void)dla::io::read_matrix<double>(mfile, "m"); });
  const int rb = peak_growth_mb([] {}, [&] { (void)dla::io::read_batch<double>(bfile, "b"); });
  std::printf("peak growth, MB: write matrix %d, batch %d; read matrix %d, batch %d (the data: 128)\n", wm,
              wb, rm, rb);
  for (int g : {wm, wb, rm, rb}) ASSERT_GE(g, 0) << "a child failed";
  EXPECT_LE(wm, 48) << "writing the matrix made a copy of it";
  EXPECT_LE(wb, 48) << "writing the batch made a copy of it";
  EXPECT_LE(rm, 128 + 48) << "reading the matrix made a copy of it";
  EXPECT_LE(rb, 128 + 48) << "reading the batch made a copy of it";
  EXPECT_GE(rm, 120) << "the read's own 128 MB are not seen: the measure does not work here";
}

}  // namespace
