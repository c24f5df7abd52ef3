// dla bench's result files (apps/bench/bench.cpp, Report::write_json and
// write_csv): what they write, and that a write that fails is an error, not
// a truncated file with exit 0. No GPU needed (CUDA builds only: the bench
// code is compiled with the CUDA backend).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/bench.hpp"
#include "dla/core/error.hpp"

namespace {

namespace fs = std::filesystem;

dla::bench::Report sample_report() {
  dla::bench::Report r;
  dla::bench::Row row;
  row.suite = "potrf";
  row.variant = "tf32x3";
  row.op = "spotrf";
  row.shape = "n=4096";
  row.ms = 1.25;
  row.rate = 18.3;
  row.unit = "TFLOP/s";
  row.note = "a \"quoted\", comma note";
  r.add(row);
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// No file but the target in the folder (no temporary left behind).
void expect_only(const fs::path& dir, const fs::path& file) {
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path(), file) << "left behind: " << e.path();
}

TEST(BenchReport, WritesJsonAndCsv) {
  const fs::path dir = fs::temp_directory_path() / ("dla_bench_report_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto r = sample_report();
  r.write_json((dir / "r.json").string());
  const std::string j = slurp(dir / "r.json");
  EXPECT_NE(j.find("\"shape\": \"n=4096\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"note\": \"a \\\"quoted\\\", comma note\""), std::string::npos) << j;
  fs::remove(dir / "r.json");
  r.write_csv((dir / "r.csv").string());
  const std::string c = slurp(dir / "r.csv");
  // RFC 4180: a field with a quote or comma is quoted, its quotes doubled.
  EXPECT_NE(c.find(",\"a \"\"quoted\"\", comma note\"\n"), std::string::npos) << c;
  expect_only(dir, dir / "r.csv");
  fs::remove_all(dir);
}

// /dev/full fails every write with ENOSPC, as a full disk does. The old code
// wrote through an ofstream it never checked after the first open: no error,
// exit 0, and a truncated or empty results file.
TEST(BenchReport, FailedWriteIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const auto r = sample_report();
  EXPECT_THROW(r.write_json("/dev/full"), dla::IoError);
  EXPECT_THROW(r.write_csv("/dev/full"), dla::IoError);
  EXPECT_TRUE(fs::exists("/dev/full"));  // a device is written in place, never replaced
}

// A results file that exists is replaced whole, or (on failure) left as it was.
TEST(BenchReport, ReplacesAnExistingFile) {
  const fs::path dir = fs::temp_directory_path() / ("dla_bench_replace_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "r.json") << "old contents that are longer than the new ones, much longer ......"; }
  sample_report().write_json((dir / "r.json").string());
  EXPECT_EQ(slurp(dir / "r.json").rfind("[\n", 0), 0u);
  EXPECT_EQ(slurp(dir / "r.json").find("old contents"), std::string::npos);
  expect_only(dir, dir / "r.json");
  fs::remove_all(dir);
}

}  // namespace
