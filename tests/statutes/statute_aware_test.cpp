// Statute-aware values (statutes.hpp) against the tests' own count over
// (position, counter) states, written here without the pass engine:
//
//   A_X(p, c): side X, having made c moves under the clause's count, can
//   still end the count winning (a capture, promotion or the end of the game
//   that leaves a position the clause's chain values as a win for X) without
//   making more than `limit` moves in all.  X to move: some move ends it well
//   (c + 1 <= limit), or keeps the balance into A_X(q, c + 1).  The other side
//   to move: it has no move (it has lost), or every move ends the count well
//   for X or keeps the balance into A_X(q, c).  Solved for c = limit down to 0.
//
// A fresh position is won under the clause by X when A_X(p, 0); the moves X
// needs are limit - max{c : A_X(p, c)}.  Exits are valued by plain play
// (library tables, checked elsewhere) where the clause's chain does not cover
// the position reached, by this file's own result for 3Kv1K, and by the
// library's statute-aware value for 4Kv1K (the same computation as the one
// checked here on 3Kv1K; its 2 million positions are too many for a test).
#include <gtest/gtest.h>

#include <unordered_map>

#include "damka/index.hpp"
#include "damka/notation.hpp"
#include "damka/slots.hpp"
#include "fixture.hpp"
#include "own_count.hpp"

namespace {

using namespace damka;
using statutes_test::russian;
using statutes_test::three_kings;
using statutes_test::Balance;
using statutes_test::own_values;
using statutes_test::Own;

const Clause& clause_of(const Rulebook& b, const char* id) {
  const Clause* c = b.find(id);
  EXPECT_NE(c, nullptr) << id;
  return *c;
}

// Compares the library with the own count on every node; returns how many
// plain wins the clause turns into draws.
std::uint64_t compare(const Rulebook& book, const Clause& c, const Balance& b, const std::vector<Own>& own,
                      const ValueSource& values) {
  std::uint64_t into_draws = 0, wins = 0;
  for (std::size_t i = 0; i < b.nodes.size(); ++i) {
    const Position& p = b.nodes[i];
    auto count = values.statute_count(book, c, p);
    EXPECT_TRUE(count.ok()) << count.message();
    if (!count) return 0;
    const Value sa = limit_count(*count, c.limit);
    EXPECT_EQ(sa.wdl, own[i].value.wdl) << c.id << " " << to_fen(russian(), p);
    if (sa.wdl != Wdl::Draw) {
      ++wins;
      EXPECT_EQ(winner_moves(*count), own[i].needed) << c.id << " " << to_fen(russian(), p);
    }
    auto plain = values.value(p, Metric::WDL);
    EXPECT_TRUE(plain.ok());
    if (sa.wdl != Wdl::Draw) {
      EXPECT_EQ(sa.wdl, plain->wdl) << "a statute-aware win must be a plain win";
    }
    if (plain->wdl != Wdl::Draw && sa.wdl == Wdl::Draw) ++into_draws;
  }
  EXPECT_GT(wins, 0u);
  return into_draws;
}

Wdl plain_wdl(const ValueSource& values, const Position& q) {
  auto v = values.value(q, Metric::WDL);
  EXPECT_TRUE(v.ok()) << v.message();
  return v ? v->wdl : Wdl::Draw;
}

TEST(StatuteAware, ThreeKingsUnderClauses3And4MatchTheOwnCount) {
  const Rulebook ru = statutes_test::book("russian-federation");
  SolverValues values(three_kings().solver.rules(), three_kings().solver);
  // 3Kv1K's exits reach 2Kv1K and less (no entry of .3 or .4 covers them:
  // plain play) or the end of the game.
  const Balance b(three_kings().roots, [&](const Position& q) { return plain_wdl(values, q); });
  ASSERT_EQ(b.nodes.size(), three_kings().roots.size());
  for (const char* id : {"2.1.9.1.3", "2.1.9.1.4"}) {
    SCOPED_TRACE(id);
    const Clause& c = clause_of(ru, id);
    const auto own = own_values(b, c.limit);
    compare(ru, c, b, own, values);
    // With a tighter limit the clause turns wins into draws: the same count
    // must agree there too (the limit is the clause's only parameter).
    Clause tight = c;
    tight.id = std::string(id) + "-tight";
    tight.limit = 6;
    Rulebook tb = ru;
    tb.clauses.push_back(tight);
    const auto own6 = own_values(b, 6);
    EXPECT_GT(compare(tb, tb.clauses.back(), b, own6, values), 0u);
  }
}

// 3 kings and a man vs a king under 2.1.9.1.4, the man on h6 (and g7, where
// it goes): man moves keep the balance (the count goes on), promotion ends
// it, and a capture by the lone king ends it too.
TEST(StatuteAware, ThreeKingsAndAManUnderClause4MatchTheOwnCount) {
  const Rulebook ru = statutes_test::book("russian-federation");
  const Clause& c4 = clause_of(ru, "2.1.9.1.4");
  Solver solver(russian(), 2);
  solver.solve(Material{1, 3, 0, 1});
  SolverValues values(solver.rules(), solver);

  // Own values of 3Kv1K under .4 (the lone king taking the man lands there).
  const Balance kings(three_kings().roots, [&](const Position& q) { return plain_wdl(values, q); });
  const auto kings_own = own_values(kings, c4.limit);
  const auto exit_value = [&](const Position& q) -> Wdl {
    const Material m = material_of(q);
    if (m == Material{0, 3, 0, 1}) return kings_own[kings.id.at(q)].value.wdl;
    if (clause_covers(ru, c4, q)) {  // 4Kv1K: the library's value (see the top of the file)
      auto v = values.statute_value(ru, c4, q);
      EXPECT_TRUE(v.ok()) << v.message();
      return v->wdl;
    }
    return plain_wdl(values, q);
  };
  std::vector<Position> roots;
  const int h6 = square_at(7, 5);
  for (int a = 0; a < kNumSquares; ++a)
    for (int b = a + 1; b < kNumSquares; ++b)
      for (int k = b + 1; k < kNumSquares; ++k)
        for (int lone = 0; lone < kNumSquares; ++lone) {
          const Bitboard w = bit(a) | bit(b) | bit(k);
          if ((w | bit(lone)) & bit(h6) || (w & bit(lone))) continue;
          for (Color stm : {Color::White, Color::Black}) {
            Position p;
            p.kings[0] = w;
            p.men[0] = bit(h6);
            p.kings[1] = bit(lone);
            p.side_to_move = stm;
            roots.push_back(p);
          }
        }
  const Balance b(roots, exit_value);
  ASSERT_GT(b.nodes.size(), roots.size());  // the man's move to g7 keeps the balance
  const auto own = own_values(b, c4.limit);
  compare(ru, c4, b, own, values);

  // The artefact of counting through the defender's captures is gone: where
  // the lone king must capture, the count ends at once, so such a position
  // never needs more moves than the limit.
  const MaterialIndex index(Material{1, 3, 0, 1});
  auto counts = values.statute_counts(ru, c4, Material{1, 3, 0, 1});
  ASSERT_TRUE(counts.ok()) << counts.message();
  MoveList moves;
  std::uint64_t forced = 0;
  for (std::uint64_t s = 0; s < table_slots(index); ++s) {
    const Position p = position_at(index, s);
    if (p.side_to_move != Color::Black) continue;
    generate_moves(russian(), p, moves);
    if (moves.empty() || !moves.front().is_capture()) continue;
    ++forced;
    const Value v = Value::decode((**counts)[s]);
    ASSERT_TRUE(v.wdl == Wdl::Draw || v.plies == 1) << to_fen(russian(), p);
  }
  EXPECT_GT(forced, 200000u);
  // The example: 1... e3:b6 at once.
  auto p = parse_fen(russian(), "B:WKd2,Kd4,f2,Kh2:BKe3");
  ASSERT_TRUE(p.ok());
  auto v = judge(ru, russian(), *p, StatuteCounters{}, values);
  ASSERT_TRUE(v.ok()) << v.message();
  for (const ClauseJudgement& j : v->clauses) {
    if (j.number == "2.1.9.1.4") {
      EXPECT_LE(j.moves_needed, 0) << v->summary;
    }
  }
}

}  // namespace
