// Retrograde analysis of one material (internal to the generator).
#pragma once

#include <cstdint>
#include <vector>

#include "damka/index.hpp"
#include "damka/movegen.hpp"
#include "damka/solver.hpp"
#include "damka/unmove.hpp"

namespace damka::retro {

// Values of positions outside the material being solved: positions reached by
// captures and promotions.  A side to move with no piece has lost (0 plies).
class Successors {
 public:
  void add(const SolvedTable* table);  // a solved canonical material
  // DTW and DTC codes of q; q's material must be one of those added, or have
  // a side with no pieces.
  void codes(const Position& q, std::uint16_t& dtw, std::uint16_t& dtc) const;

 private:
  struct Entry {
    Material canonical;
    const SolvedTable* table;
    MaterialIndex index;
  };
  std::vector<Entry> entries_;
};

// Solves canonical material `m` given every successor material; fills `out`.
// `progress` (may be empty) is called after each level.
SolveStats solve_material(const Rules& rules, const Material& m, const Successors& succ, SolvedTable& out,
                          int threads, const Solver::ProgressFn& progress);

}  // namespace damka::retro

