// Retrograde analysis of one material (internal to the generator).
#pragma once

#include <cstdint>
#include <vector>

#include "damka/index.hpp"
#include "damka/movegen.hpp"
#include "damka/solver.hpp"

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

// The candidate predecessors of q inside its level: positions from which a
// quiet king move of the side not to move in q leads to q.  Those whose side
// to move has a capture are not real predecessors (the move was illegal).
template <class F>
void for_each_king_unmove(const Rules& r, const Position& q, F&& f);

}  // namespace damka::retro

#include "retro_unmove.hpp"
