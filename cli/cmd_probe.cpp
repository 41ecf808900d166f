// damka probe (placeholder until its issue lands: exits non-zero).
#include <iostream>

#include "commands.hpp"

namespace damka::cli {

void register_probe(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("probe", "(not built yet)");
  cmd->callback([&rc] {
    std::cerr << "damka probe: not available in this build yet\n";
    rc = 2;
  });
}

}  // namespace damka::cli
