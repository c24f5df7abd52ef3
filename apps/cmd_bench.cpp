// dla bench <suite|all>: each suite's rows next to cuBLAS/cuSOLVER from the
// same run; exits non-zero if any row's accuracy check fails.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "dla/core/config.hpp"
#include "dla/core/error.hpp"
#if DLA_HAVE_CUDA
#include <unistd.h>

#include "bench/bench.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#endif

namespace dla::app {

namespace {
struct BenchArgs {
  std::string suite = "all";
  std::vector<long long> sizes;
  int repeat = 10;
  std::vector<std::string> variants;
  bool list_variants = false;
  bool quick = false;
  std::string json, csv;
};

// A size n >= 1 that fits a long long, in decimal. (CLI::PositiveNumber said
// "Value 0 not in range 0.000000 to 1797...", and CLI11 saturates an integer
// that is too large instead of refusing it.)
const CLI::Validator kPositiveSize(
    [](std::string& s) -> std::string {
      long long v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size() || v < 1)
        return "'" + s + "' is not a positive integer";
      return {};
    },
    "POSITIVE");
}  // namespace

void add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Benchmark dla against cuBLAS/cuSOLVER (needs a GPU)");
  cmd->add_option("suite", args->suite, "gemm, getrf, potrf, batched, solve, or all")
      ->capture_default_str();
  cmd->add_option("--sizes", args->sizes, "Problem sizes (n) instead of the suite's list")
      ->delimiter(',')
      ->check(kPositiveSize);
  cmd->add_option("--repeat", args->repeat, "Timed runs per measurement (median reported)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--variants", args->variants, "Kernel variants to run (comma list, or all)")
      ->delimiter(',');
  cmd->add_flag("--list-variants", args->list_variants, "List the GEMM kernel variants and exit");
  cmd->add_flag("--quick", args->quick, "Short suite with small sizes (smoke test)");
  cmd->add_option("--json", args->json, "Write the rows as JSON to this file");
  cmd->add_option("--csv", args->csv, "Write the rows as CSV to this file");
  cmd->callback([args] {
#if DLA_HAVE_CUDA
    bench::Options opt;
    for (long long s : args->sizes) opt.sizes.push_back(s);
    opt.repeat = args->repeat;
    opt.variants = args->variants;
    opt.quick = args->quick;
    if (args->list_variants) {
      for (const std::string& v : cuda::sgemm_variants()) std::printf("%s\n", v.c_str());
      return;
    }
    // Every name some suite picks rows by (suite_gemm.cu, suite_lu.cu,
    // suite_cholesky.cu): anything else would just run nothing for it.
    std::vector<std::string> known = cuda::sgemm_variants();
    for (const char* v : {"dgemm", "sgetrf", "sgesv", "dgetrf", "tf32x3", "native", "all"})
      known.push_back(v);
    for (const std::string& v : args->variants)
      if (std::find(known.begin(), known.end(), v) == known.end()) {
        std::string names;
        for (const std::string& k : known) names += " " + k;
        throw InvalidArgument("bench: unknown variant '" + v + "' (known:" + names + ")");
      }
    // The result files are written after the whole run: refuse one that
    // cannot be created now, not an hour later.
    for (const auto& [opt_name, path] : {std::pair{"--json", args->json}, std::pair{"--csv", args->csv}}) {
      if (path.empty()) continue;
      namespace fs = std::filesystem;
      std::error_code ec;
      const fs::path dir = fs::absolute(path, ec).parent_path();
      if (fs::is_directory(path, ec))
        throw InvalidArgument(std::string("bench: ") + opt_name + ": '" + path + "' is a directory");
      if (!fs::is_directory(dir, ec))
        throw InvalidArgument(std::string("bench: ") + opt_name + ": '" + dir.string() +
                              "' is not a directory (writing '" + path + "')");
      if (access(dir.c_str(), W_OK) != 0)
        throw InvalidArgument(std::string("bench: ") + opt_name + ": cannot create files in '" +
                              dir.string() + "' (writing '" + path + "')");
    }
    // "solve" is the end-to-end rows: gesv (getrf suite) and posv (potrf suite).
    const std::vector<std::string> wanted =
        args->suite == "solve" ? std::vector<std::string>{"getrf", "potrf"}
                               : std::vector<std::string>{args->suite};
    std::vector<const bench::Suite*> chosen;
    for (const auto& s : bench::suites())
      for (const auto& w : wanted)
        if (w == "all" || w == s.name) chosen.push_back(&s);
    if (chosen.empty()) {
      std::string known;
      for (const auto& s : bench::suites()) known += " " + s.name;
      throw InvalidArgument("bench: unknown suite '" + args->suite + "' (known:" + known + ", solve, all)");
    }
    bench::Report report;
    for (const auto* s : chosen) {
      bench::progress("suite " + s->name);
      s->run(opt, report);
    }
    report.print_table();
    if (!args->json.empty()) report.write_json(args->json);
    if (!args->csv.empty()) report.write_csv(args->csv);
    if (report.failures() > 0)
      throw Error("bench: " + std::to_string(report.failures()) + " row(s) failed their accuracy check");
#else
    throw NotCompiled("bench: this build of dla has no CUDA support; benchmarks need a GPU");
#endif
  });
}

}  // namespace dla::app
