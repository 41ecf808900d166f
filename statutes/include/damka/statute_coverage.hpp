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
// Whether a clause can cover some position of material m (either orientation),
// ignoring position conditions.
bool clause_matches_material(const Rulebook& book, const Clause& clause, const Material& m);

}  // namespace damka
