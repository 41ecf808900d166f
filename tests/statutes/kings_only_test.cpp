// The kings-only distance (2.1.9.1.8: capture, promotion or man move restarts
// the count) against the tests' own solver, and its relation to DTC.
#include <gtest/gtest.h>

#include "damka/index.hpp"
#include "damka/notation.hpp"
#include "damka/slots.hpp"
#include "fixture.hpp"

namespace {

using namespace damka;
using statutes_test::russian;

// Every position of a white king and a white man against a black king.
std::vector<Position> king_and_man_vs_king() {
  std::vector<Position> out;
  for (int k = 0; k < kNumSquares; ++k)
    for (int m = 0; m < kNumSquares; ++m)
      for (int b = 0; b < kNumSquares; ++b) {
        if (k == m || k == b || m == b || (bit(m) & promotion_row(Color::White))) continue;
        for (Color stm : {Color::White, Color::Black}) {
          Position p;
          p.kings[0] = bit(k);
          p.men[0] = bit(m);
          p.kings[1] = bit(b);
          p.side_to_move = stm;
          out.push_back(p);
        }
      }
  return out;
}

TEST(KingsOnly, MatchesOwnSolverWithAMan) {
  Solver solver(russian(), 2);
  const Material km{1, 1, 0, 1};  // 1K1Mv1K
  solver.solve(km);
  SolverValues values(solver.rules(), solver);
  const auto roots = king_and_man_vs_king();
  own::Graph g(russian(), roots);
  const auto dtw = g.solve_dtw();
  const auto dtc = g.solve_reset(dtw, own::kCapture | own::kPromotion);
  const auto ko = g.solve_reset(dtw, own::kCapture | own::kPromotion | own::kManMove);
  int shorter = 0;
  for (const Position& p : roots) {
    const std::size_t i = g.id(p);
    auto k = values.count_value(p, CountMetric::KingsOnly);
    auto c = values.count_value(p, CountMetric::DTC);
    auto w = values.count_value(p, CountMetric::DTW);
    ASSERT_TRUE(k.ok() && c.ok() && w.ok());
    ASSERT_EQ(*w, dtw[i]) << to_fen(russian(), p);
    ASSERT_EQ(*c, dtc[i]) << to_fen(russian(), p);
    ASSERT_EQ(*k, ko[i]) << to_fen(russian(), p);
    // More restarts never lengthen the count.
    ASSERT_EQ(k->wdl, c->wdl);
    ASSERT_LE(k->plies, c->plies);
    if (k->plies < c->plies) ++shorter;
  }
  EXPECT_GT(shorter, 0);  // a man move does restart the count somewhere
}

TEST(KingsOnly, EqualsDtcWithoutMen) {
  // Computed the long way (not the shortcut ValueSource takes for kings-only
  // materials), it must give DTC itself.
  const auto& t = statutes_test::three_kings();
  SolverValues values(t.solver.rules(), t.solver);
  for (const Material m : {Material{0, 3, 0, 1}, Material{0, 2, 0, 1}, Material{0, 1, 0, 1}}) {
    const SolvedTable* table = t.solver.table(m);
    ASSERT_NE(table, nullptr) << m.name();
    auto codes = compute_kings_only(russian(), *table, values);
    ASSERT_TRUE(codes.ok()) << codes.message();
    EXPECT_EQ(*codes, table->dtc) << m.name();
  }
}

TEST(KingsOnly, ReportUsesItForClause8) {
  Solver solver(russian(), 2);
  solver.solve(Material{1, 1, 0, 1});
  SolverValues values(solver.rules(), solver);
  ReportOptions opt;
  opt.max_pieces = 3;
  auto r = analyse(statutes_test::book("russian-federation"), russian(), values, opt);
  ASSERT_TRUE(r.ok()) << r.message();
  const ClauseReport* c8 = nullptr;
  for (const ClauseReport& c : r->clauses)
    if (c.clause.id == "2.1.9.1.8") c8 = &c;
  ASSERT_NE(c8, nullptr);
  EXPECT_EQ(c8->clause.metric(), CountMetric::KingsOnly);
  // Recount 1K1Mv1K by hand from the values: under 2.1.9.1.8 a man move ends
  // the count like a capture, so where every exit keeps the win the
  // statute-aware count is the kings-only distance.
  const Material km{1, 1, 0, 1};
  const MaterialIndex index(km);
  SideFigures own[2];
  for (std::uint64_t s = 0; s < table_slots(index); ++s) {
    const Position p = position_at(index, s);
    auto k = values.count_value(p, CountMetric::KingsOnly);
    ASSERT_TRUE(k.ok());
    SideFigures& f = own[idx(p.side_to_move)];
    ++f.positions;
    if (k->wdl != Wdl::Draw && winner_moves(*k) <= 15) f.longest = std::max(f.longest, winner_moves(*k));
  }
  for (const MaterialFigures& m : c8->materials) {
    if (!(m.material == km)) continue;
    for (int s = 0; s < 2; ++s) {
      EXPECT_EQ(m.side[s].positions, own[s].positions);
      EXPECT_EQ(m.side[s].longest, own[s].longest);
      EXPECT_EQ(m.side[s].into_draws, 0u);  // 1K1Mv1K wins within 15 moves of kings
    }
    return;
  }
  FAIL() << "1K1Mv1K not in 2.1.9.1.8";
}

}  // namespace
