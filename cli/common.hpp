// Small helpers shared by the subcommands.
#pragma once

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>

#include "damka/rules.hpp"

namespace damka::cli {

// The rules of a named variant, or nullptr after printing an error naming the
// known variants.
inline const Rules* lookup_variant(const char* command, const std::string& name) {
  const auto v = parse_variant(name);
  if (!v) {
    std::cerr << "damka " << command << ": unknown variant '" << name << "' (known: " << variant_names() << ")\n";
    return nullptr;
  }
  return &rules_of(*v);
}

// A --threads value: 0 means every core.
inline int resolve_threads(int requested) {
  return requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The directory of the running executable (rulebooks are looked up near it).
inline std::filesystem::path exe_dir() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p.parent_path();
}

}  // namespace damka::cli
