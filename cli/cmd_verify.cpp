// damka verify (placeholder until its issue lands: exits non-zero).
#include <iostream>

#include "commands.hpp"

namespace damka::cli {

void register_verify(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("verify", "(not built yet)");
  cmd->callback([&rc] {
    std::cerr << "damka verify: not available in this build yet\n";
    rc = 2;
  });
}

}  // namespace damka::cli
