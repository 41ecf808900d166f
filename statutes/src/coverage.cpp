// Which clause covers which position.
#include "damka/statutes.hpp"

namespace damka {
namespace {

bool is_lone_king(const Position& p, Color side) {
  return p.men[idx(side)] == 0 && popcount(p.kings[idx(side)]) == 1;
}

bool condition_holds(Condition c, const Position& p, Color stronger) {
  const Color weaker = opposite(stronger);
  switch (c) {
    case Condition::LoneKingOnMainRoad: return is_lone_king(p, weaker) && (p.kings[idx(weaker)] & kMainRoad) != 0;
    case Condition::LoneKingOffMainRoad: return is_lone_king(p, weaker) && (p.kings[idx(weaker)] & kMainRoad) == 0;
    case Condition::StrongerHoldsMainRoad: return (p.kings[idx(stronger)] & kMainRoad) != 0;
    case Condition::BothSidesHaveKings: return p.kings[0] != 0 && p.kings[1] != 0;
  }
  return false;
}

// Kings and men of each side of material m with `stronger` as the stronger side.
struct Sides {
  int sk, sm, wk, wm;
};
Sides sides_of(const Material& m, Color stronger) {
  return stronger == Color::White ? Sides{m.wk, m.wm, m.bk, m.bm} : Sides{m.bk, m.bm, m.wk, m.wm};
}

bool pair_matches(const Clause& c, const Sides& s) {
  for (const SidePair& sp : c.sides)
    if (sp.stronger.matches(s.sk, s.sm) && sp.weaker.matches(s.wk, s.wm)) return true;
  return false;
}

// The pieces of each colour (colour index), of a position or a material.
struct Counts {
  int kings[2], men[2];
  int total() const { return kings[0] + kings[1] + men[0] + men[1]; }
  int pieces(Color c) const { return kings[idx(c)] + men[idx(c)]; }
};
Counts counts_of(const Position& p) {
  return {{popcount(p.kings[0]), popcount(p.kings[1])}, {popcount(p.men[0]), popcount(p.men[1])}};
}
Counts counts_of(const Material& m) { return {{m.wk, m.bk}, {m.wm, m.bm}}; }

// Of a material: -1 for the conditions that look at squares.
int condition_holds(Condition c, const Counts& n, Color stronger) {
  switch (c) {
    case Condition::LoneKingOnMainRoad:
    case Condition::LoneKingOffMainRoad: {
      const Color weaker = opposite(stronger);
      if (n.men[idx(weaker)] != 0 || n.kings[idx(weaker)] != 1) return 0;  // no lone king: false wherever it stands
      return -1;
    }
    case Condition::StrongerHoldsMainRoad: return n.kings[idx(stronger)] == 0 ? 0 : -1;
    case Condition::BothSidesHaveKings: return n.kings[0] != 0 && n.kings[1] != 0 ? 1 : 0;
  }
  return -1;
}

// Whether some position of material m, `stronger` being the stronger side,
// can meet the clause's conditions; `position_dependent` says whether the
// conditions depend on more than the material.
bool material_orientation_matches(const Clause& c, const Material& m, Color stronger, bool& position_dependent) {
  position_dependent = false;
  if (!c.judgeable || !c.pieces.matches(m.pieces())) return false;
  if (!pair_matches(c, sides_of(m, stronger))) return false;
  const Counts n = counts_of(m);
  for (Condition k : c.conditions) {
    const int h = condition_holds(k, n, stronger);
    if (h == 0) return false;
    if (h < 0) position_dependent = true;
  }
  return true;
}

// clause_covers without the clause's excepts, from the pieces' counts and
// `holds(condition, stronger)`: 1 or 0, or -1 where it depends on more than
// the counts (the answer is then unknown: `unknown` is set).
template <class Holds>
std::optional<Color> covers_ignoring_except(const Clause& clause, const Counts& n, Holds&& holds,
                                            std::optional<Color> winner, bool& unknown) {
  if (!clause.judgeable || !clause.pieces.matches(n.total())) return std::nullopt;
  bool ok[2] = {false, false};
  for (Color s : {Color::White, Color::Black}) {
    const Color w = opposite(s);
    if (!pair_matches(clause, {n.kings[idx(s)], n.men[idx(s)], n.kings[idx(w)], n.men[idx(w)]})) continue;
    bool all = true;
    for (Condition k : clause.conditions) {
      if (!all) break;
      const int h = holds(k, s);
      if (h < 0) unknown = true;
      all = h == 1;
    }
    ok[idx(s)] = all;
  }
  if (!ok[0] && !ok[1]) return std::nullopt;
  Color stronger = ok[0] ? Color::White : Color::Black;
  if (ok[0] && ok[1]) {
    const int w = n.pieces(Color::White), b = n.pieces(Color::Black);
    stronger = w > b ? Color::White : b > w ? Color::Black : winner.value_or(Color::White);
  }
  return stronger;
}

std::optional<Color> covers_ignoring_except(const Clause& clause, const Position& p, std::optional<Color> winner) {
  bool unknown = false;
  return covers_ignoring_except(
      clause, counts_of(p), [&](Condition k, Color s) { return condition_holds(k, p, s) ? 1 : 0; }, winner, unknown);
}

}  // namespace

ResolvedClause resolve_clause(const Rulebook& book, const Clause& clause) {
  ResolvedClause r{&clause, {}};
  for (const std::string& id : clause.except) {
    const Clause* x = book.find(id);
    if (x && x != &clause && x->except.empty()) r.except.push_back(x);
  }
  return r;
}

std::optional<Color> clause_covers(const ResolvedClause& c, const Position& p, std::optional<Color> winner) {
  const auto stronger = covers_ignoring_except(*c.clause, p, winner);
  if (!stronger) return std::nullopt;
  for (const Clause* x : c.except)
    if (covers_ignoring_except(*x, p, winner)) return std::nullopt;
  return stronger;
}

std::optional<Color> clause_covers(const Rulebook& book, const Clause& clause, const Position& p,
                                   std::optional<Color> winner) {
  return clause_covers(resolve_clause(book, clause), p, winner);  // allocates only for a clause with excepts
}

MaterialCoverage::MaterialCoverage(const ResolvedClause& c, const Material& m) : clause_(&c) {
  const Counts n = counts_of(m);
  auto holds = [&](Condition k, Color s) { return condition_holds(k, n, s); };
  const std::optional<Color> winners[3] = {std::nullopt, Color::White, Color::Black};
  for (int w = 0; w < 3 && !dependent_; ++w) {
    bool unknown = false;
    std::optional<Color> stronger = covers_ignoring_except(*c.clause, n, holds, winners[w], unknown);
    for (const Clause* x : c.except)
      if (stronger && covers_ignoring_except(*x, n, holds, winners[w], unknown)) stronger = std::nullopt;
    dependent_ = unknown;
    fixed_[w] = stronger;
  }
}

bool clause_matches_material(const Rulebook& book, const Clause& clause, const Material& m) {
  for (Color s : {Color::White, Color::Black}) {
    bool dependent = false;
    if (!material_orientation_matches(clause, m, s, dependent)) continue;
    // Left out entirely when an excepted clause covers every position of this
    // orientation.
    bool excluded = false;
    for (const std::string& id : clause.except) {
      const Clause* x = book.find(id);
      if (!x || x == &clause) continue;
      for (Color xs : {Color::White, Color::Black}) {
        bool xdep = false;
        if (material_orientation_matches(*x, m, xs, xdep) && !xdep) excluded = true;
      }
    }
    if (!excluded) return true;
  }
  return false;
}

}  // namespace damka
