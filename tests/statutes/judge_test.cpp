// The rule-aware verdict on positions on both sides of a limit; the positions
// are picked with the tests' own solver.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>

#include "damka/notation.hpp"
#include "fixture.hpp"
#include "own_count.hpp"

namespace {

using namespace damka;
using statutes_test::russian;
using statutes_test::three_kings;

bool black_king_on_road(const Position& p) { return (p.kings[1] & kMainRoad) != 0; }
bool white_king_on_road(const Position& p) { return (p.kings[0] & kMainRoad) != 0; }

// The own statute-aware count of 3Kv1K (own_count.hpp; exits by plain play),
// with a limit no 3Kv1K win reaches: needed = the moves White needs.
struct OwnCount {
  std::unique_ptr<statutes_test::Balance> balance;
  std::vector<statutes_test::Own> own;
  OwnCount() {
    SolverValues values(three_kings().solver.rules(), three_kings().solver);
    balance = std::make_unique<statutes_test::Balance>(
        three_kings().roots, [&](const Position& q) { return values.value(q, Metric::WDL)->wdl; });
    own = statutes_test::own_values(*balance, 30);
  }
};
const OwnCount& own_count() {
  static const OwnCount c;
  return c;
}

// A 3Kv1K position White wins needing exactly `moves` moves by the own count,
// with `stm` to move, meeting `pick`.
std::optional<Position> find(int moves, Color stm, const std::function<bool(const Position&)>& pick) {
  const auto& c = own_count();
  for (std::size_t i = 0; i < c.balance->nodes.size(); ++i) {
    const Position& p = c.balance->nodes[i];
    if (p.side_to_move != stm || !pick(p)) continue;
    const bool white_wins = c.own[i].value.wdl == (stm == Color::White ? Wdl::Win : Wdl::Loss);
    if (white_wins && c.own[i].needed == moves) return p;
  }
  return std::nullopt;
}

// One source for every call: statute-aware counts are computed once and kept.
const SolverValues& shared_values() {
  static const SolverValues v(three_kings().solver.rules(), three_kings().solver);
  return v;
}

StatuteVerdict judged(const Rulebook& b, const Position& p, const StatuteCounters& counters) {
  const SolverValues& values = shared_values();
  auto v = judge(b, russian(), p, counters, values);
  EXPECT_TRUE(v.ok()) << (v ? "" : v.message());
  return v ? *v : StatuteVerdict{};
}
StatuteVerdict judged(const Rulebook& b, const Position& p, int played) {
  const SolverValues& values = shared_values();
  auto v = judge(b, russian(), p, played, values);
  EXPECT_TRUE(v.ok()) << (v ? "" : v.message());
  return v ? *v : StatuteVerdict{};
}

// One test (each ctest process builds the fixture anew).
TEST(Judge, EachClausesCounterOnBothSidesOfItsLimit) {
  const Rulebook ru = statutes_test::book("russian-federation");
  // The longest 3Kv1K win with a white king on the main road.
  int longest = 0;
  for (int m = 1; m <= 30; ++m)
    if (find(m, Color::White, white_king_on_road)) longest = m;
  ASSERT_GE(longest, 5);
  const auto p = find(longest, Color::White, white_king_on_road);
  ASSERT_TRUE(p.has_value());
  const StatuteVerdict fresh = judged(ru, *p, StatuteCounters{});
  EXPECT_TRUE(fresh.wins_in_time) << fresh.summary;
  // 2.1.9.1.3, .4 (15 moves), .5 (30, both sides have kings, 4 pieces) and
  // .8 (15) all cover it; each has its own counter.
  const std::map<std::string, int> limits = {
      {"2.1.9.1.3", 15}, {"2.1.9.1.4", 15}, {"2.1.9.1.5", 30}, {"2.1.9.1.8", 15}};
  ASSERT_EQ(fresh.clauses.size(), limits.size());
  for (const auto& [number, limit] : limits) {
    SCOPED_TRACE(number);
    const StatuteVerdict in = judged(ru, *p, StatuteCounters{{number, limit - longest}});
    EXPECT_TRUE(in.wins_in_time) << in.summary;
    for (const ClauseJudgement& j : in.clauses) {
      EXPECT_EQ(j.moves_needed, longest) << j.id;
      EXPECT_EQ(j.moves_played, j.number == number ? limit - longest : 0) << j.id;
      EXPECT_TRUE(j.in_time) << j.id;
    }
    const StatuteVerdict out = judged(ru, *p, StatuteCounters{{number, limit - longest + 1}});
    EXPECT_FALSE(out.wins_in_time) << out.summary;
    ASSERT_NE(out.deciding_clause(), nullptr);
    EXPECT_EQ(out.deciding_clause()->number, number);
    EXPECT_EQ(out.deciding_clause()->moves_left, longest - 1);
    EXPECT_EQ(out.summary.rfind("draw by " + number, 0), 0u) << out.summary;
    for (const ClauseJudgement& j : out.clauses) EXPECT_EQ(j.in_time, j.number != number) << j.id;
  }
  // An entry id counts for that entry only.
  const StatuteVerdict by_id = judged(ru, *p, StatuteCounters{{"2.1.9.1.5/4-5", 30 - longest + 1}});
  EXPECT_FALSE(by_id.wins_in_time);
  EXPECT_EQ(by_id.deciding_clause()->id, "2.1.9.1.5/4-5");
  // One count for every clause (the older call): the tightest limit decides.
  EXPECT_TRUE(judged(ru, *p, 15 - longest).wins_in_time);
  EXPECT_FALSE(judged(ru, *p, 15 - longest + 1).wins_in_time);

  // Counters naming no judgeable clause, negative, malformed: errors.
  EXPECT_TRUE(parse_statute_counters(ru, "2.1.9.1.5=12,2.1.9.1.8=3").ok());
  EXPECT_EQ(parse_statute_counters(ru, "2.1.9.1.5=12")->at("2.1.9.1.5"), 12);
  for (const char* bad : {"2.1.9.1.1=3", "9.9=1", "2.1.9.1.5=-1", "2.1.9.1.5", "=3", "2.1.9.1.5=x",
                          "2.1.9.1.5=1,2.1.9.1.5=2", ""}) {
    auto r = parse_statute_counters(ru, bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  {
    SolverValues sv(three_kings().solver.rules(), three_kings().solver);
    EXPECT_FALSE(judge(ru, russian(), *p, StatuteCounters{{"2.1.9.1.8", -1}}, sv).ok());
    EXPECT_FALSE(judge(ru, russian(), *p, StatuteCounters{{"nope", 1}}, sv).ok());
  }

  const Rulebook ua = statutes_test::book("ukrainian-64");
  // Black to move with the lone king on the main road, White winning in
  // exactly 5 moves: in time at 0 played, a draw at 1.
  const auto five = find(5, Color::Black, black_king_on_road);
  ASSERT_TRUE(five.has_value());
  for (const Rulebook* b : {&ua, &ru}) {
    const std::string id = b == &ua ? "6.3.1" : "2.1.9.1.7";
    SCOPED_TRACE(id + " " + to_fen(russian(), *five));
    const StatuteVerdict v0 = judged(*b, *five, StatuteCounters{{id, 0}});
    EXPECT_TRUE(v0.wins_in_time) << v0.summary;
    EXPECT_EQ(v0.deciding_clause()->id, id);
    EXPECT_EQ(v0.deciding_clause()->moves_needed, 5);
    const StatuteVerdict v1 = judged(*b, *five, StatuteCounters{{id, 1}});
    EXPECT_FALSE(v1.wins_in_time) << v1.summary;
    EXPECT_EQ(v1.deciding_clause()->id, id);
  }
  // One move more than the limit: the statute makes it a draw from the start.
  const auto six = find(6, Color::Black, black_king_on_road);
  ASSERT_TRUE(six.has_value());
  const StatuteVerdict v = judged(ua, *six, 0);
  EXPECT_FALSE(v.wins_in_time);
  EXPECT_EQ(v.winner, Color::White);
  EXPECT_EQ(v.deciding_clause()->id, "6.3.1");
  EXPECT_EQ(v.deciding_clause()->moves_needed, 6);
  EXPECT_EQ(v.summary.rfind("draw by 6.3.1", 0), 0u) << v.summary;
  // Off the main road 6.4 gives 15 moves (and 6.6 32): the same kind of
  // position, 6 moves, wins.
  const auto off = find(6, Color::Black, [](const Position& q) { return !black_king_on_road(q); });
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

  SolverValues values(three_kings().solver.rules(), three_kings().solver);
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

namespace {

using namespace damka;

// Counts read from a game: a count starts where the clause first covers a
// position, runs in moves of the stronger side and ends at a capture.
TEST(Judge, CountsFromAGame) {
  const Rulebook ru = statutes_test::book("russian-federation");
  // 3 kings vs a king: four quiet white moves.
  auto g = parse_game(statutes_test::russian(),
                      "[Event \"t\"]\n[FEN \"W:WKa1,Kc1,Ke1:BKh2\"]\n1. a1-b2 h2-g1 {a comment} 2. c1-d2 g1-h2 "
                      "3. b2-a1 h2-g1 4. d2-c1 *");
  ASSERT_TRUE(g.ok()) << g.message();
  EXPECT_EQ(g->moves.size(), 7u);
  const StatuteCounters c = count_game(ru, *g);
  EXPECT_EQ(c.at("2.1.9.1.4"), 4);
  EXPECT_EQ(c.at("2.1.9.1.8"), 4);
  EXPECT_EQ(c.at("2.1.9.1.5"), 4);
  // 2.1.9.1.3 starts where a white king first stands on the main road (a1: at once).
  EXPECT_EQ(c.at("2.1.9.1.3"), 4);
  // Illegal moves are named.
  auto bad = parse_game(statutes_test::russian(), "[FEN \"W:WKa1,Kc1,Ke1:BKh2\"] 1. a1-b3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("a1-b3"), std::string::npos) << bad.message();
  // A man move ends 2.1.9.1.8's count, not 2.1.9.1.4's.
  auto m = parse_game(statutes_test::russian(), "[FEN \"W:WKa1,Kc1,Ke1,c3:BKh2\"] 1. a1-b2 h2-g1 2. c3-b4 g1-h2 3. b2-a1");
  ASSERT_TRUE(m.ok()) << m.message();
  const StatuteCounters cm = count_game(ru, *m);
  EXPECT_EQ(cm.at("2.1.9.1.4"), 3);
  EXPECT_EQ(cm.at("2.1.9.1.8"), 1);
}

}  // namespace
