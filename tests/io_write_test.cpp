// io: the write rules of FileWriter and write_matrix -- overwrite only with
// force, a temporary next to the target until commit, nothing left behind by
// a failure (mid-write, fsync, file size limit, signals), long names, moved
// writers, bad arguments. The round trips are in io_test.cpp.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>

#include "io_test_util.hpp"
#include "test_util.hpp"

// Fault injection for IoWrite.FailedFsyncLeavesNothing: this definition of
// fsync(2) takes the place of libc's in the test binary (the executable's
// symbol is found first); it fails with EIO while the flag is set.
namespace {
bool g_fail_fsync = false;
}
extern "C" int fsync(int fd) {
  if (g_fail_fsync) {
    errno = EIO;
    return -1;
  }
  return int(::syscall(SYS_fsync, fd));
}

namespace {

using namespace dla::test::io;
using dla::test::Mat;
using dla::test::random_matrix;

TEST(IoWrite, ExistingFileNeedsForce) {
  const fs::path dir = fresh_dir("force");
  const std::string file = (dir / "x.h5").string();
  const Mat<double> a = random_matrix<double>(3, 3, 1), b = random_matrix<double>(4, 2, 2);
  dla::io::write_matrix<double>(file, "A", a);
  expect_io_error([&] { dla::io::write_matrix<double>(file, "A", b); },
                  {file, "already exists", "force"});
  EXPECT_TRUE(dla::io::read_matrix<double>(file, "A") == a);  // untouched
  dla::io::write_matrix<double>(file, "B", b, {.force = true});
  EXPECT_TRUE(dla::io::read_matrix<double>(file, "B") == b);
  expect_io_error([&] { dla::io::read_matrix<double>(file, "A"); }, {file, "'A'", "no such dataset", "B"});
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"x.h5"});
}

TEST(IoWrite, TemporaryNextToTargetUntilCommit) {
  const fs::path dir = fresh_dir("tmp");
  const std::string file = (dir / "out.h5").string();
  dla::io::FileWriter w(file);
  w.write_matrix<float>("A", random_matrix<float>(5, 5, 1));
  EXPECT_FALSE(fs::exists(file));
  const auto names = files_in(dir);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].rfind(".out.h5.tmp-", 0), 0u) << names[0];
  EXPECT_EQ(fs::path(w.temp_path()).parent_path(), dir);
  w.commit();
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.h5"});
  expect_io_error([&] { w.write_matrix<float>("B", random_matrix<float>(2, 2, 1)); }, {file, "committed"});
}

TEST(IoWrite, FailureMidWriteLeavesNothing) {
  const fs::path dir = fresh_dir("midfail");
  const std::string file = (dir / "out.h5").string();
  {  // the same dataset twice: the second write fails, commit refuses
    dla::io::FileWriter w(file);
    w.write_matrix<double>("A", random_matrix<double>(3, 3, 1));
    expect_io_error([&] { w.write_matrix<double>("A", random_matrix<double>(3, 3, 2)); },
                    {file, "'A'", "already exists in this file"});
    expect_io_error([&] { w.commit(); }, {file, "earlier write", "already exists in this file"});
  }
  EXPECT_TRUE(files_in(dir).empty());
  try {  // an exception between two writes: the writer is destroyed uncommitted
    dla::io::FileWriter w(file);
    w.write_matrix<double>("A", random_matrix<double>(3, 3, 1));
    throw std::runtime_error("solver failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(files_in(dir).empty());
  // ... and an existing target survives both, byte for byte.
  const Mat<double> keep = random_matrix<double>(2, 2, 9);
  dla::io::write_matrix<double>(file, "keep", keep);
  const auto size = fs::file_size(file);
  {
    dla::io::FileWriter w(file, {.force = true});
    w.write_matrix<double>("new", random_matrix<double>(30, 30, 1));
    EXPECT_THROW(w.set_attribute("missing", "x", 1.0), dla::IoError);
  }
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.h5"});
  EXPECT_EQ(fs::file_size(file), size);
  EXPECT_TRUE(dla::io::read_matrix<double>(file, "keep") == keep);
}

TEST(IoWrite, TargetCreatedMeanwhileIsKept) {
  const fs::path dir = fresh_dir("race");
  const std::string file = (dir / "out.h5").string();
  {
    dla::io::FileWriter w(file);
    w.write_matrix<double>("A", random_matrix<double>(3, 3, 1));
    std::ofstream(file) << "someone else's file";  // appears before commit
    expect_io_error([&] { w.commit(); }, {file, "created while writing", "force"});
  }
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.h5"});
  std::ifstream in(file);
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "someone else's file");
}

TEST(IoWrite, DanglingSymlinkTargetRefusedUpFront) {
  // The name is taken by a link to nothing: refused when the writer is made
  // (it used to fail only at commit, after the work, as "created while
  // writing"); with force the link itself is replaced by the file.
  const fs::path dir = fresh_dir("dangling");
  const std::string file = (dir / "out.h5").string();
  fs::create_symlink(dir / "nowhere.h5", file);
  expect_io_error([&] { dla::io::FileWriter w(file); }, {file, "symbolic link", "nowhere.h5", "force"});
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.h5"});
  const Mat<double> a = random_matrix<double>(3, 3, 1);
  dla::io::write_matrix<double>(file, "A", a, {.force = true});
  EXPECT_FALSE(fs::is_symlink(file));
  EXPECT_TRUE(dla::io::read_matrix<double>(file, "A") == a);
}

TEST(IoWrite, FailedFsyncLeavesNothing) {
  // A file system that reports a lost write only at fsync (NFS, quotas): the
  // commit fails naming it, the temporary is removed, and an existing target
  // is kept (it used to be replaced by the unsynced file).
  const fs::path dir = fresh_dir("fsync");
  const std::string file = (dir / "out.h5").string();
  {
    dla::io::FileWriter w(file);
    w.write_matrix<double>("A", random_matrix<double>(3, 3, 1));
    g_fail_fsync = true;
    expect_io_error([&] { w.commit(); }, {file, "fsync", std::strerror(EIO)});
    g_fail_fsync = false;
  }
  EXPECT_TRUE(files_in(dir).empty());
  const Mat<double> keep = random_matrix<double>(2, 2, 9);
  dla::io::write_matrix<double>(file, "keep", keep);
  {
    dla::io::FileWriter w(file, {.force = true});
    w.write_matrix<double>("new", random_matrix<double>(30, 30, 1));
    g_fail_fsync = true;
    EXPECT_THROW(w.commit(), dla::IoError);
    g_fail_fsync = false;
  }
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.h5"});
  EXPECT_TRUE(dla::io::read_matrix<double>(file, "keep") == keep);
}

// A write that fails for lack of space (here a file size limit, as a full
// disk or a quota would), caught, and then a normal end of the program: the
// message names the cause in one line ("File too large"), and the program
// exits normally. HDF5 1.10 keeps the file whose close failed half
// destroyed and crashed closing it again at exit (exit status: SIGSEGV);
// dla's io now runs HDF5's exit-time cleanup itself and skips it after a
// failed close (h5util.cpp). Each case runs in a child process of its own,
// which ends through exit(), atexit handlers and all: contiguous and gzip
// datasets, and a successful write (the cleanup then runs, and the file
// reads back in the parent).
int exit_status_after_write(const std::string& file, int n, int gzip_level) {
  return run_in_child(
      [&] {
        std::signal(SIGXFSZ, SIG_IGN);
        const struct rlimit lim {100 * 1024, 100 * 1024};
        ::setrlimit(RLIMIT_FSIZE, &lim);
        try {
          dla::io::write_matrix<double>(file, "A", random_matrix<double>(n, n, 5),
                                        {.gzip_level = gzip_level});
          return 0;
        } catch (const dla::IoError& e) {
          // The failure this test makes, named by its cause in one line (HDF5's
          // driver text has a time stamp and a line break; h5util.cpp tidies it).
          const std::string m = e.what();
          const bool tidy = m.find(std::strerror(EFBIG)) != std::string::npos &&
                            m.find('\n') == std::string::npos && m.find("time =") == std::string::npos;
          if (!tidy) std::fprintf(stderr, "untidy message: %s\n", m.c_str());
          return tidy ? 3 : 5;
        } catch (...) {
          return 4;
        }
      },
      true);
}

TEST(IoWrite, FailedWriteThenNormalExit) {
  const fs::path dir = fresh_dir("exit");
  const std::string file = (dir / "out.h5").string();
  for (int gzip : {0, 1}) {
    EXPECT_EQ(exit_status_after_write(file, 300, gzip), 3)
        << "gzip " << gzip << ": 3 is a caught IoError naming the cause in one line and a normal "
        << "exit; 5: the message was not (printed above); 1000 + s: signal s";
    EXPECT_TRUE(files_in(dir).empty()) << "gzip " << gzip;
  }
  EXPECT_EQ(exit_status_after_write(file, 60, 0), 0);  // 28 KB: within the limit
  EXPECT_EQ(dla::io::read_matrix<double>(file, "A"), random_matrix<double>(60, 60, 5));
}

TEST(IoWrite, LongFileNameNearTheLimit) {
  // Any name the file system takes (up to 255 bytes) can be written, although
  // the temporary's name adds a prefix and a suffix to it.
  const fs::path dir = fresh_dir("longname");
  const Mat<float> a = random_matrix<float>(3, 2, 4);
  for (std::size_t len : {200u, 240u, 255u}) {
    const std::string name = std::string(len - 3, 'n') + ".h5";
    const std::string file = (dir / name).string();
    {
      dla::io::FileWriter w(file);
      EXPECT_EQ(fs::path(w.temp_path()).parent_path(), dir);
      EXPECT_LE(fs::path(w.temp_path()).filename().string().size(), 255u);
      w.write_matrix<float>("a", a);
      w.commit();
    }
    EXPECT_TRUE(dla::io::read_matrix<float>(file, "a") == a) << len;
    EXPECT_EQ(files_in(dir), std::vector<std::string>{name});
    fs::remove(file);
  }
}

TEST(IoWrite, RemoveTemporaryFilesForSignalHandlers) {
  // What a SIGINT/SIGTERM handler calls: the temporaries of live writers go,
  // committed files stay.
  const fs::path dir = fresh_dir("sigtmp");
  const Mat<double> a = random_matrix<double>(4, 4, 6);
  dla::io::write_matrix<double>((dir / "done.h5").string(), "a", a);
  {
    dla::io::FileWriter w1((dir / "one.h5").string()), w2((dir / "two.h5").string());
    w1.write_matrix<double>("a", a);
    dla::io::FileWriter moved(std::move(w2));
    EXPECT_EQ(files_in(dir).size(), 3u);
    dla::io::remove_temporary_files();
    EXPECT_EQ(files_in(dir), std::vector<std::string>{"done.h5"});
    EXPECT_FALSE(fs::exists(w1.temp_path()));
    EXPECT_FALSE(fs::exists(moved.temp_path()));
  }  // the writers' own cleanup afterwards is harmless
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"done.h5"});
  EXPECT_TRUE(dla::io::read_matrix<double>((dir / "done.h5").string(), "a") == a);
  dla::io::FileWriter w3((dir / "three.h5").string());  // later writers still register
  dla::io::remove_temporary_files();
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"done.h5"});
}

TEST(IoWrite, MovedWriterOwnsTheTransaction) {
  const fs::path dir = fresh_dir("move");
  const std::string file = (dir / "m.h5").string();
  const Mat<float> a = random_matrix<float>(4, 2, 3);
  dla::io::FileWriter w1(file);
  w1.write_matrix<float>("a", a);
  dla::io::FileWriter w2(std::move(w1));
  expect_io_error([&] { w1.write_matrix<float>("b", a); }, {"moved from"});
  w2.commit();
  EXPECT_TRUE(dla::io::read_matrix<float>(file, "a") == a);
  {
    dla::io::FileWriter w3((dir / "other.h5").string());
    w3.write_matrix<float>("x", a);
    w3 = dla::io::FileWriter((dir / "third.h5").string());  // drops other.h5's transaction
    w3.commit();
  }
  auto names = files_in(dir);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"m.h5", "third.h5"}));
}

TEST(IoWrite, BadArgumentsAndFolders) {
  const fs::path dir = fresh_dir("args");
  const std::string file = (dir / "o.h5").string();
  expect_io_error([&] { dla::io::FileWriter w((dir / "nofolder" / "o.h5").string()); },
                  {"nofolder", "does not exist"});
  expect_io_error([&] { dla::io::FileWriter w(dir.string()); }, {dir.string(), "is a folder"});
  expect_io_error([&] { dla::io::FileWriter w(file, {.gzip_level = 12}); }, {file, "gzip level 12"});
  auto one = [&](const std::function<void(dla::io::FileWriter&)>& f, const std::vector<std::string>& pieces) {
    {
      dla::io::FileWriter w(file);
      expect_io_error([&] { f(w); }, pieces);
      EXPECT_THROW(w.commit(), dla::IoError);
    }
    EXPECT_TRUE(files_in(dir).empty());
  };
  one([](auto& w) { w.template write_matrix<double>("Z", Mat<double>(0, 4)); },
      {file, "'Z'", "zero-size dimension", "(0, 4)"});
  one([](auto& w) { w.template write_matrix<double>("V", Mat<double>(3, 2), {.rank = 1}); },
      {file, "'V'", "rank 1 needs an n x 1 matrix"});
  one([](auto& w) { w.template write_matrix<float>("G", Mat<float>(3, 2), {.gzip_level = 10}); },
      {file, "'G'", "gzip level 10"});
  one([](auto& w) { w.template write_batch<float>("B", dla::Batch<float>(2, 3, 2), {.rank = 1}); },
      {file, "'B'", "batch rank 1"});
  one([](auto& w) { w.set_attribute("nothing", "a", 1.0); }, {file, "'nothing'", "no such dataset"});
  if (::geteuid() != 0) {  // root writes anywhere
    const fs::path ro = fresh_dir("readonly");
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    expect_io_error([&] { dla::io::FileWriter w((ro / "o.h5").string()); }, {"cannot create a file in folder"});
    fs::permissions(ro, fs::perms::owner_all);
  }
}

}  // namespace
