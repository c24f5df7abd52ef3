// dla: solve, factor, generate, inspect and benchmark dense linear systems.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "dla/core/config.hpp"
#include "dla/core/error.hpp"

int main(int argc, char** argv) {
  using namespace dla::app;
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
    return kSingular;
  } catch (const dla::NotPositiveDefinite& e) {
    std::fprintf(stderr, "dla: error: %s\n", e.what());
    return kSingular;
  } catch (const dla::DeviceError& e) {
    std::fprintf(stderr, "dla: device error: %s\n", e.what());
    return kDeviceOrRuntime;
  } catch (const dla::Error& e) {  // InvalidArgument, DimensionMismatch, IoError
    std::fprintf(stderr, "dla: error: %s\n", e.what());
    return kUsageOrInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dla: runtime error: %s\n", e.what());
    return kDeviceOrRuntime;
  }
  return kOk;
}
