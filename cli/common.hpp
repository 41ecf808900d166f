// Small helpers shared by the subcommands.
#pragma once

#include <iostream>
#include <string>

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

}  // namespace damka::cli
