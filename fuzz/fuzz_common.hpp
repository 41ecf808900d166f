// Shared by the fuzz targets.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "damka/rules.hpp"

namespace damka::fuzz {

// A property a target checks: prints what failed and aborts (a finding).
#define DAMKA_FUZZ_CHECK(cond, what)                                                 \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "fuzz property failed: %s (%s:%d): %s\n", #cond, __FILE__, \
                   __LINE__, what);                                                  \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)

// The variant a byte selects.
inline const Rules& variant_of(unsigned char b) {
  const auto& all = all_variants();
  return rules_of(all[b % all.size()]);
}

}  // namespace damka::fuzz
