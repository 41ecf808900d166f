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

// Whether some position of material m, `stronger` being the stronger side,
// can meet the clause's conditions; `position_dependent` says whether the
// conditions depend on more than the material.
bool material_orientation_matches(const Clause& c, const Material& m, Color stronger, bool& position_dependent) {
  position_dependent = false;
  if (!c.judgeable || !c.pieces.matches(m.pieces())) return false;
  const Sides s = sides_of(m, stronger);
  if (!pair_matches(c, s)) return false;
  for (Condition k : c.conditions) {
    switch (k) {
      case Condition::LoneKingOnMainRoad:
      case Condition::LoneKingOffMainRoad:
        if (s.wk != 1 || s.wm != 0) return false;
        position_dependent = true;
        break;
      case Condition::StrongerHoldsMainRoad:
        if (s.sk < 1) return false;
        position_dependent = true;
        break;
      case Condition::BothSidesHaveKings:
        if (s.sk < 1 || s.wk < 1) return false;
        break;
    }
  }
  return true;
}

// clause_covers without the clause's excepts.
std::optional<Color> covers_ignoring_except(const Clause& clause, const Position& p, std::optional<Color> winner) {
  if (!clause.judgeable || !clause.pieces.matches(p.count())) return std::nullopt;
  bool ok[2] = {false, false};
  for (Color s : {Color::White, Color::Black}) {
    const Color w = opposite(s);
    if (!pair_matches(clause, {popcount(p.kings[idx(s)]), popcount(p.men[idx(s)]), popcount(p.kings[idx(w)]),
                               popcount(p.men[idx(w)])}))
      continue;
    bool all = true;
    for (Condition k : clause.conditions) all = all && condition_holds(k, p, s);
    ok[idx(s)] = all;
  }
  if (!ok[0] && !ok[1]) return std::nullopt;
  Color stronger = ok[0] ? Color::White : Color::Black;
  if (ok[0] && ok[1]) {
    const int w = popcount(p.pieces(Color::White)), b = popcount(p.pieces(Color::Black));
    stronger = w > b ? Color::White : b > w ? Color::Black : winner.value_or(Color::White);
  }
  return stronger;
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
