// Tables held whole in memory: a material's DTW and DTC codes by slot, and
// where they are found.  The in-memory solver (generator's solver.hpp) makes
// them; the generator's load_solved_table reads them from files; the
// statutes' in-memory value source (statute_values.hpp) and tests read them.
#pragma once

#include <cstdint>
#include <vector>

#include "damka/material.hpp"

namespace damka {

// Values of one canonical material: codes (value.hpp) per table slot
// (see slots.hpp locate()/table_slots()).
struct SolvedTable {
  Material material;
  std::vector<std::uint16_t> dtw;  // DTW codes; WDL is the DTW code's Wdl
  std::vector<std::uint16_t> dtc;  // DTC codes
};

// Where whole tables are found, by canonical material.
class TableSource {
 public:
  virtual ~TableSource() = default;
  // The table of a canonical material, or nullptr if not available.  Cost: a
  // look-up.  Thread-safety: that of the implementation (the Solver's: safe
  // while nothing is solved, added or dropped).
  virtual const SolvedTable* find(const Material& canonical) const = 0;
};

}  // namespace damka
