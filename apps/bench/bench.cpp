#include "bench.hpp"

#include <cuda_runtime.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "dla/core/cuda_check.hpp"
#include "dla/core/error.hpp"

namespace dla::bench {

bool Options::all_variants() const {
  return std::find(variants.begin(), variants.end(), "all") != variants.end();
}
bool Options::wants(const std::string& v) const {
  return variants.empty() || all_variants() ||
         std::find(variants.begin(), variants.end(), v) != variants.end();
}

bool Options::wants_mode(const std::string& m) const {
  auto named = [&](const char* v) {
    return std::find(variants.begin(), variants.end(), v) != variants.end();
  };
  return (!named("tf32x3") && !named("native")) || named(m.c_str());
}

std::vector<Suite>& suites() {
  static std::vector<Suite> s;
  return s;
}
SuiteRegistrar::SuiteRegistrar(const char* name, const char* help, SuiteFn fn) {
  suites().push_back({name, help, fn});
}

void progress(const std::string& msg) {
  std::fprintf(stderr, "[bench] %s\n", msg.c_str());
  std::fflush(stderr);
}

void Report::add(Row r) {
  if (!std::isnan(r.error_limit)) r.ok = std::isfinite(r.error) && r.error <= r.error_limit;
  if (std::isnan(r.ratio) && std::isfinite(r.vendor_ms) && r.ms > 0) r.ratio = r.vendor_ms / r.ms;
  progress(r.suite + " " + r.variant + " " + r.op + " " + r.shape + ": " + std::to_string(r.ms) +
           " ms" + (r.ok ? "" : "  FAILED accuracy"));
  rows_.push_back(std::move(r));
}

int Report::failures() const {
  return int(std::count_if(rows_.begin(), rows_.end(), [](const Row& r) { return !r.ok; }));
}

namespace {
std::string num(double v, const char* fmt) {
  if (std::isnan(v)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}
std::string json_num(double v) { return std::isfinite(v) ? num(v, "%.6g") : "null"; }
// A CSV field (RFC 4180): quoted when it holds a quote, comma or line break,
// its quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of("\",\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

// Writes `text` to `path` whole or not at all: a regular file (or a new one)
// through a temporary beside it, checked, then renamed over it; anything
// else (a device, a pipe) in place, checked. A failed write (a full disk,
// a quota) is an IoError naming the path, and leaves no partial file.
void write_text(const std::string& path, const std::string& text, const char* what) {
  auto fail = [&](const std::string& why) {
    return IoError("bench: cannot write " + std::string(what) + " results to '" + path + "': " + why);
  };
  struct stat st {};
  const bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  const std::string tmp = special ? path : path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) throw fail(std::strerror(errno));
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) {
    const int e = !wrote ? err : errno;
    if (!special) std::remove(tmp.c_str());
    throw fail(std::strerror(e));
  }
  if (!special && std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw fail(std::strerror(e));
  }
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}
}  // namespace

void Report::print_table() const {
  std::printf("\n%-8s %-22s %-6s %-22s %10s %9s %9s %7s %10s %-7s %s\n", "suite", "variant", "op",
              "shape", "dla ms", "dla", "vendor", "ratio", "error", "status", "note");
  for (const Row& r : rows_) {
    std::printf("%-8s %-22s %-6s %-22s %10s %9s %9s %7s %10s %-7s %s%s\n", r.suite.c_str(),
                r.variant.c_str(), r.op.c_str(), r.shape.c_str(), num(r.ms, "%.3f").c_str(),
                num(r.rate, "%.2f").c_str(), num(r.vendor_rate, "%.2f").c_str(),
                num(r.ratio, "%.2fx").c_str(), num(r.error, "%.2e").c_str(),
                r.ok ? "ok" : "FAILED", r.unit == "TFLOP/s" ? "" : ("[" + r.unit + "] ").c_str(),
                r.note.c_str());
  }
  std::printf("%zu rows, %d failed\n", rows_.size(), failures());
}

void Report::write_json(const std::string& path) const {
  std::ostringstream f;
  f << "[\n";
  for (size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    f << "  {\"suite\": " << json_str(r.suite) << ", \"variant\": " << json_str(r.variant)
      << ", \"op\": " << json_str(r.op) << ", \"shape\": " << json_str(r.shape)
      << ", \"ms\": " << json_num(r.ms) << ", \"rate\": " << json_num(r.rate)
      << ", \"unit\": " << json_str(r.unit) << ", \"vendor\": " << json_str(r.vendor)
      << ", \"vendor_ms\": " << json_num(r.vendor_ms) << ", \"vendor_rate\": " << json_num(r.vendor_rate)
      << ", \"ratio\": " << json_num(r.ratio) << ", \"error\": " << json_num(r.error)
      << ", \"error_limit\": " << json_num(r.error_limit) << ", \"ok\": " << (r.ok ? "true" : "false")
      << ", \"note\": " << json_str(r.note) << "}" << (i + 1 < rows_.size() ? "," : "") << "\n";
  }
  f << "]\n";
  write_text(path, f.str(), "JSON");
}

void Report::write_csv(const std::string& path) const {
  std::ostringstream f;
  f << "suite,variant,op,shape,ms,rate,unit,vendor,vendor_ms,vendor_rate,ratio,error,error_limit,ok,note\n";
  for (const Row& r : rows_)
    f << csv_field(r.suite) << ',' << csv_field(r.variant) << ',' << csv_field(r.op) << ','
      << csv_field(r.shape) << ',' << json_num(r.ms) << ',' << json_num(r.rate) << ','
      << csv_field(r.unit) << ',' << csv_field(r.vendor) << ',' << json_num(r.vendor_ms) << ','
      << json_num(r.vendor_rate) << ',' << json_num(r.ratio) << ',' << json_num(r.error) << ','
      << json_num(r.error_limit) << ',' << (r.ok ? 1 : 0) << ',' << csv_field(r.note) << "\n";
  write_text(path, f.str(), "CSV");
}

double time_ms(stream_t stream, int repeat, const std::function<void()>& fn, int warmup) {
  for (int i = 0; i < warmup; ++i) fn();
  DLA_CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t start, stop;
  DLA_CUDA_CHECK(cudaEventCreate(&start));
  DLA_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> t;
  for (int i = 0; i < std::max(repeat, 1); ++i) {
    DLA_CUDA_CHECK(cudaEventRecord(start, stream));
    fn();
    DLA_CUDA_CHECK(cudaEventRecord(stop, stream));
    DLA_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    DLA_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    t.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace dla::bench
