#pragma once
// The dla command-line tool: one file per subcommand, each adding itself to
// the CLI11 app. A subcommand's callback throws dla exceptions; main() maps
// them to exit codes (see exit_codes below).
#include <CLI/CLI.hpp>

namespace dla::app {

// Exit codes of the dla tool.
enum ExitCode : int {
  kOk = 0,
  kUsageOrInput = 2,      // bad usage, bad input file or data
  kSingular = 3,          // singular / not positive definite (the message names the index)
  kDeviceOrRuntime = 4,   // CUDA or other runtime failure
};

void add_solve_command(CLI::App& app);
void add_factor_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_gemm_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_bench_command(CLI::App& app);

}  // namespace dla::app
