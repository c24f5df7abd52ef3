// dla inspect FILE.h5: the datasets with their shapes and types.
#include <cstdio>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"

namespace dla::app {

void add_inspect_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("inspect", "List the datasets of an HDF5 file (shapes in C order, as h5py)");
  cmd->add_option("file", *path, "HDF5 file")->required()->check(CLI::ExistingFile);
  cmd->callback([path] {
    const auto all = io::list_datasets(*path);
    std::printf("%s: %zu dataset(s)\n", path->c_str(), all.size());
    std::printf("  %-24s %-22s %s\n", "name", "shape", "type");
    for (const auto& d : all)
      std::printf("  %-24s %-22s %s\n", d.name.c_str(), shape_string(d.shape).c_str(), d.type.c_str());
  });
}

}  // namespace dla::app
