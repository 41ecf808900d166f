// The rule-aware verdict on positions on both sides of a limit; the positions
// are picked with the tests' own solver.
#include <gtest/gtest.h>

#include "damka/notation.hpp"
#include "fixture.hpp"

namespace {

using namespace damka;
using statutes_test::russian;
using statutes_test::three_kings;

bool black_king_on_road(const Position& p) { return (p.kings[1] & kMainRoad) != 0; }

// A 3Kv1K position whose own DTW says White wins in exactly `moves` moves, with
// `stm` to move and the lone king on or off the main road.
std::optional<Position> find(int moves, Color stm, bool lone_on_road) {
  const auto& t = three_kings();
  for (const Position& p : t.roots) {
    if (p.side_to_move != stm || black_king_on_road(p) != lone_on_road) continue;
    const Value v = t.own_dtw(p);
    const bool white_wins = (v.wdl == Wdl::Win) == (stm == Color::White) && v.wdl != Wdl::Draw;
    if (!white_wins) continue;
    const int need = v.wdl == Wdl::Win ? (v.plies + 1) / 2 : v.plies / 2;
    if (need == moves) return p;
  }
  return std::nullopt;
}

StatuteVerdict judged(const Rulebook& b, const Position& p, int played) {
  SolverValues values(three_kings().solver);
  auto v = judge(b, russian(), p, played, values);
  EXPECT_TRUE(v.ok()) << (v ? "" : v.message());
  return v ? *v : StatuteVerdict{};
}

// One test (each ctest process builds the fixture anew).
TEST(Judge, BothSidesOfALimit) {
  const Rulebook ru = statutes_test::book("russian-federation");
  // The longest 3Kv1K win needs 13 moves (own DTW): in time with 2 moves
  // played, too late with 3.
  const auto p = find(13, Color::White, false);
  ASSERT_TRUE(p.has_value());
  const StatuteVerdict ok = judged(ru, *p, 2);
  EXPECT_TRUE(ok.covered);
  EXPECT_EQ(ok.winner, Color::White);
  EXPECT_TRUE(ok.wins_in_time) << ok.summary;
  ASSERT_NE(ok.deciding_clause(), nullptr);
  EXPECT_EQ(ok.deciding_clause()->moves_needed, 13);
  EXPECT_EQ(ok.deciding_clause()->moves_left, 13);
  EXPECT_NE(ok.summary.find("wins in time"), std::string::npos) << ok.summary;

  const StatuteVerdict late = judged(ru, *p, 3);
  EXPECT_FALSE(late.wins_in_time) << late.summary;
  ASSERT_NE(late.deciding_clause(), nullptr);
  const std::string n = late.deciding_clause()->number;
  EXPECT_TRUE(n == "2.1.9.1.3" || n == "2.1.9.1.4") << n;
  EXPECT_EQ(late.deciding_clause()->limit, 15);
  EXPECT_EQ(late.deciding_clause()->moves_left, 12);
  EXPECT_FALSE(late.deciding_clause()->in_time);
  EXPECT_EQ(late.summary.rfind("draw by " + n, 0), 0u) << late.summary;
  // Clauses that count otherwise are listed too: 2.1.9.1.5 (30 moves) and
  // 2.1.9.1.8 (kings only, DTC) still let White win.
  int seen = 0;
  for (const ClauseJudgement& j : late.clauses) {
    if (j.number == "2.1.9.1.5" || j.id == "2.1.9.1.8") {
      EXPECT_TRUE(j.in_time) << j.id;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);

  const Rulebook ua = statutes_test::book("ukrainian-64");
  // Black to move with the lone king on the main road, White winning in
  // exactly 5 moves: in time at 0 played, a draw at 1.
  const auto five = find(5, Color::Black, true);
  ASSERT_TRUE(five.has_value());
  for (const Rulebook* b : {&ua, &ru}) {
    const std::string id = b == &ua ? "6.3.1" : "2.1.9.1.7";
    SCOPED_TRACE(id + " " + to_fen(russian(), *five));
    const StatuteVerdict v0 = judged(*b, *five, 0);
    EXPECT_TRUE(v0.wins_in_time) << v0.summary;
    EXPECT_EQ(v0.deciding_clause()->id, id);
    EXPECT_EQ(v0.deciding_clause()->moves_needed, 5);
    const StatuteVerdict v1 = judged(*b, *five, 1);
    EXPECT_FALSE(v1.wins_in_time) << v1.summary;
    EXPECT_EQ(v1.deciding_clause()->id, id);
  }
  // One move more than the limit: the statute makes it a draw from the start.
  const auto six = find(6, Color::Black, true);
  ASSERT_TRUE(six.has_value());
  const StatuteVerdict v = judged(ua, *six, 0);
  EXPECT_FALSE(v.wins_in_time);
  EXPECT_EQ(v.winner, Color::White);
  EXPECT_EQ(v.deciding_clause()->id, "6.3.1");
  EXPECT_EQ(v.deciding_clause()->moves_needed, 6);
  EXPECT_EQ(v.summary.rfind("draw by 6.3.1", 0), 0u) << v.summary;
  // Off the main road 6.4 gives 15 moves (and 6.6 32): the same kind of
  // position, 6 moves, wins.
  const auto off = find(6, Color::Black, false);
  ASSERT_TRUE(off.has_value());
  const StatuteVerdict w = judged(ua, *off, 0);
  EXPECT_TRUE(w.wins_in_time) << w.summary;
  EXPECT_EQ(w.deciding_clause()->id, "6.4");

  // Draws and errors.  The lone king on a1 holding the main road against three kings: a draw.
  auto a1 = parse_fen(russian(), "W:WKc1,Ke1,Kg1:BKa1");
  ASSERT_TRUE(a1.ok());
  const StatuteVerdict d = judged(ru, *a1, 0);
  EXPECT_TRUE(d.covered);
  EXPECT_FALSE(d.winner.has_value());
  EXPECT_FALSE(d.wins_in_time);
  EXPECT_NE(d.summary.find("draw with perfect play"), std::string::npos) << d.summary;

  SolverValues values(three_kings().solver);
  EXPECT_FALSE(judge(ru, russian(), *a1, -1, values).ok());
  EXPECT_FALSE(judge(ru, rules_of(Variant::Thai), *a1, 0, values).ok());
  // No table for this material in the solver: an error, not a guess.
  auto q = parse_fen(russian(), "W:WKc1,Ke1,g3:BKa1");
  ASSERT_TRUE(q.ok());
  auto e = judge(ru, russian(), *q, 0, values);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("no table"), std::string::npos) << e.message();
}

}  // namespace
