// dla info: version, build configuration, devices, and what Backend::Auto picks.
#include <cstdio>

#include "commands.hpp"
#include "dla/core.hpp"

namespace dla::app {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Show the version, build options and CUDA devices");
  cmd->callback([] {
    std::printf("dla %s\n", DLA_VERSION_STRING);
    std::printf("CUDA backend: %s\n", cuda_compiled() ? "compiled" : "not compiled (host only)");
    const int n = device_count();
    std::printf("CUDA devices: %d\n", n);
    for (int i = 0; i < n; ++i) {
      const DeviceInfo d = device_info(i);
      std::printf("  [%d] %s  cc %d.%d  %d SMs  %.1f GiB (%.1f GiB free)  L2 %zu MiB  smem/block %zu KiB\n",
                  i, d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count,
                  double(d.total_memory) / (1 << 30), double(d.free_memory) / (1 << 30),
                  d.l2_cache >> 20, d.shared_memory_per_block_optin >> 10);
    }
    Context ctx(Backend::Auto);
    std::printf("Backend::Auto picks: %s\n", to_string(ctx.backend()));
  });
}

}  // namespace dla::app
