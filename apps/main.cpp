// dla: solve, factor, generate, inspect and benchmark dense linear systems.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include "commands.hpp"
#include "dla/core/config.hpp"
#include "dla/core/error.hpp"
#include "dla/io/writer.hpp"

namespace {
// Ends the process after an error without the atexit handlers: HDF5 1.10
// keeps a file whose close failed (disk full, quota, file size limit) in its
// ID table, half destroyed, and segfaults closing it again in H5_term_library
// at exit (HDF5 PRs #2291/#2496, 2023, fix it upstream). dla's io skips
// HDF5's exit cleanup after such a failure (io/src/h5util.cpp); this is a
// second guard. dla's writers are already gone by now (the temporary file
// removed); stdio is flushed first.
[[noreturn]] void exit_after_error(int code) {
  std::fflush(nullptr);
  std::_Exit(code);
}
// Interrupted (Ctrl-C, kill, a closed terminal) while an output is being
// written: its temporary file is removed, then the signal ends the process
// as it would have. Signals ignored at start (nohup, background jobs) stay so.
extern "C" void on_interrupt(int sig) {
  dla::io::remove_temporary_files();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void remove_temporaries_on_interrupt() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}
}  // namespace

int main(int argc, char** argv) {
  using namespace dla::app;
  remove_temporaries_on_interrupt();
  CLI::App app{"dla: dense linear algebra on NVIDIA GPUs (with a host fallback)", "dla"};
  app.set_version_flag("--version", std::string("dla ") + DLA_VERSION_STRING);
  app.require_subcommand(1);
  add_solve_command(app);
  add_factor_command(app);
  add_gen_command(app);
  add_gemm_command(app);
  add_inspect_command(app);
  add_info_command(app);
  add_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsageOrInput;
  } catch (const dla::SingularMatrix& e) {
    std::fprintf(stderr, "dla: error: %s\n", e.what());
    exit_after_error(kSingular);
  } catch (const dla::NotPositiveDefinite& e) {
    std::fprintf(stderr, "dla: error: %s\n", e.what());
    exit_after_error(kSingular);
  } catch (const dla::DeviceError& e) {
    std::fprintf(stderr, "dla: device error: %s\n", e.what());
    exit_after_error(kDeviceOrRuntime);
  } catch (const dla::Error& e) {  // InvalidArgument, DimensionMismatch, IoError
    std::fprintf(stderr, "dla: error: %s\n", e.what());
    exit_after_error(kUsageOrInput);
  } catch (const std::bad_alloc& e) {
    std::fprintf(stderr, "dla: error: out of host memory (%s): the data and its workspace do not fit "
                 "in this machine's memory\n", e.what());
    exit_after_error(kDeviceOrRuntime);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dla: runtime error: %s\n", e.what());
    exit_after_error(kDeviceOrRuntime);
  }
  return kOk;
}
