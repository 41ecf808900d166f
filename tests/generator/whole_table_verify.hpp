// The tests' reference for `damka verify`: the one-ply re-check as it was
// done before verify read tables in bounded memory (every table a material
// needs loaded whole through load_solved_table, all kept).  Tests compare
// the bounded verify's verdicts with it.  Full builds only (WDL, DTW and DTC
// files for every material); serial, for small tables.
#pragma once

#include <filesystem>
#include <vector>

#include "damka/expected.hpp"
#include "damka/rules.hpp"
#include "damka/verify.hpp"

namespace damka::testing {

// One report per material of `materials` (canonical, in build order), with
// its mismatch count; `error` set when a table cannot be loaded.
std::vector<VerifyReport> whole_table_verify(const Rules& rules, const std::filesystem::path& dir,
                                             const std::vector<Material>& materials);

}  // namespace damka::testing
