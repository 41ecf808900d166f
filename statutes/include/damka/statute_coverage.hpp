// Coverage: which clause of a rulebook covers a position or a material.
// (Part of the statutes library; damka/statutes.hpp includes every part.)

#pragma once

#include <optional>
#include <vector>

#include "damka/material.hpp"
#include "damka/position.hpp"
#include "damka/rulebook.hpp"

namespace damka {

// Whether `clause` covers p, and which side is the stronger one.  For clauses
// whose sides could be either (same spec both ways) the stronger side is the
// one with more pieces; with as many pieces, the side `winner` if given, else
// White.  Clauses in `except` are checked through `book`.
std::optional<Color> clause_covers(const Rulebook& book, const Clause& clause, const Position& p,
                                   std::optional<Color> winner = std::nullopt);
// A clause with the clauses its `except` names found once (clause_covers in
// a loop: no look-up by name per position).  Points into the book, which must
// outlive it.
struct ResolvedClause {
  const Clause* clause = nullptr;
  std::vector<const Clause*> except;  // those clause_covers checks: found, not itself, no excepts of their own
};
ResolvedClause resolve_clause(const Rulebook& book, const Clause& clause);
// clause_covers(book, *c.clause, p, winner), the same answer.  Cost: a few
// popcounts per side pair and condition.  Thread-safe.
std::optional<Color> clause_covers(const ResolvedClause& c, const Position& p,
                                   std::optional<Color> winner = std::nullopt);
// clause_covers(c, p, winner) for the positions p of one material as they
// stand (material_of(p) == m, colours not swapped): found once where the
// clause and its excepts depend on the pieces' counts alone, per position
// where a condition looks at squares (the main road).  `c` must outlive it.
// Cost: an array read, else clause_covers.  Thread-safe.
class MaterialCoverage {
 public:
  MaterialCoverage(const ResolvedClause& c, const Material& m);
  std::optional<Color> operator()(const Position& p, std::optional<Color> winner = std::nullopt) const {
    if (dependent_) return clause_covers(*clause_, p, winner);
    return fixed_[winner ? 1 + static_cast<int>(idx(*winner)) : 0];
  }
  // Whether the answer depends on where the pieces stand.
  bool position_dependent() const { return dependent_; }

 private:
  const ResolvedClause* clause_;
  bool dependent_ = false;
  std::optional<Color> fixed_[3];  // winner: none, White, Black
};
// Whether a clause can cover some position of material m (either orientation),
// ignoring position conditions.
bool clause_matches_material(const Rulebook& book, const Clause& clause, const Material& m);

}  // namespace damka
