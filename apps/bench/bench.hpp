#pragma once
// The benchmark framework behind `dla bench`: options, result rows, the
// console table and JSON/CSV output, and device timing. Each suite (gemm,
// getrf, potrf, batched, ...) lives in its own suite_<name> file and registers
// itself with DLA_BENCH_SUITE.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "dla/core/types.hpp"

namespace dla::bench {

struct Options {
  std::vector<index_t> sizes;          // empty: the suite's default list
  int repeat = 10;                     // timed runs per measurement (median reported)
  std::vector<std::string> variants;   // empty: the suite's default; {"all"}: every variant
  bool quick = false;                  // a short suite (smaller sizes) for smoke runs
  std::uint64_t seed = 1234;
  bool wants(const std::string& v) const;  // variant selected?
  bool all_variants() const;
  // FP32 product mode ("tf32x3", "native") selected? Both when --variants names neither.
  bool wants_mode(const std::string& m) const;
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Row {
  std::string suite;        // gemm, getrf, gesv, potrf, posv, batched, ...
  std::string variant;      // kernel or algorithm name
  std::string op;           // NN / NT / getrf / gesv / ...
  std::string shape;        // e.g. 4096x4096x4096, or n=64,count=10000
  double ms = kNaN;         // dla median time
  double rate = kNaN;       // dla TFLOP/s (or GB/s when unit says so)
  double vendor_ms = kNaN;  // vendor median time, same run, same inputs
  double vendor_rate = kNaN;
  double ratio = kNaN;      // vendor_ms / ms (> 1: dla faster)
  double error = kNaN;      // accuracy measure of the dla result
  double error_limit = kNaN;
  bool ok = true;           // error within its limit (and finite)
  std::string unit = "TFLOP/s";
  std::string vendor;       // cublas / cusolver
  std::string note;         // extra facts: GB/s, fraction of sgemm, time split ...
};

class Report {
 public:
  void add(Row r);                    // evaluates ok from error/error_limit, prints progress
  const std::vector<Row>& rows() const { return rows_; }
  int failures() const;
  void print_table() const;           // console table to stdout
  void write_json(const std::string& path) const;
  void write_csv(const std::string& path) const;

 private:
  std::vector<Row> rows_;
};

// Median time in milliseconds of `repeat` runs of fn (which enqueues work on
// `stream`), after `warmup` untimed runs; CUDA events around each run.
double time_ms(stream_t stream, int repeat, const std::function<void()>& fn, int warmup = 2);

// Progress line on stderr (suites call it before long measurements).
void progress(const std::string& msg);

using SuiteFn = void (*)(const Options&, Report&);
struct Suite {
  std::string name;
  std::string help;
  SuiteFn run;
};
std::vector<Suite>& suites();
struct SuiteRegistrar {
  SuiteRegistrar(const char* name, const char* help, SuiteFn fn);
};
#define DLA_BENCH_SUITE(name, help, fn) \
  static ::dla::bench::SuiteRegistrar dla_bench_registrar_##fn(name, help, fn)

inline double tflops(double flops, double ms) { return flops / (ms * 1e-3) / 1e12; }

}  // namespace dla::bench
