// The report's figures for three kings vs one king, checked against the
// tests' own count: every 3Kv1K position enumerated here, solved by the tests'
// own solver (own_solver.hpp), and the clauses' conditions and counting rule
// applied by hand.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <map>

#include "damka/notation.hpp"
#include "fixture.hpp"

namespace {

using namespace damka;
using statutes_test::russian;
using statutes_test::three_kings;

bool on_main_road(int sq) { return file_of(sq) == row_of(sq); }  // a1, b2, ..., h8

bool white_king_on_road(const Position& p) {
  for (Bitboard b = p.kings[0]; b; b &= b - 1)
    if (on_main_road(lsb(b))) return true;
  return false;
}
bool black_king_on_road(const Position& p) { return on_main_road(lsb(p.kings[1])); }

// The counting rule, restated: d plies need ceil(d/2) moves with the winner
// to move, floor(d/2) with the defender to move.
int moves_for(Value v) {
  if (v.wdl == Wdl::Win) return (v.plies + 1) / 2;
  if (v.wdl == Wdl::Loss) return v.plies / 2;
  return -1;
}

struct Figures {
  std::uint64_t positions = 0, white_wins = 0, draws = 0, black_wins = 0, over = 0;
  int longest = -1, longest_dtc = -1, longest_dtw = -1;
};

// The figures of one clause over 3Kv1K, counted by DTW (the clauses' goal is
// the capture of the lone king).
std::array<Figures, 2> own_figures(const std::function<bool(const Position&)>& covered, int limit) {
  const auto& t = three_kings();
  std::array<Figures, 2> f{};
  for (const Position& p : t.roots) {
    if (!covered(p)) continue;
    Figures& x = f[idx(p.side_to_move)];
    ++x.positions;
    const Value dtw = t.own_dtw(p);
    if (dtw.wdl == Wdl::Draw) {
      ++x.draws;
      continue;
    }
    const Color winner = dtw.wdl == Wdl::Win ? p.side_to_move : opposite(p.side_to_move);
    (winner == Color::White ? x.white_wins : x.black_wins)++;
    const int need = moves_for(dtw);
    x.longest = std::max(x.longest, need);
    x.longest_dtw = std::max(x.longest_dtw, need);
    x.longest_dtc = std::max(x.longest_dtc, moves_for(t.own_dtc(p)));
    if (need > limit) ++x.over;
  }
  return f;
}

const StatuteReport& report_of(const char* name) {
  static std::map<std::string, StatuteReport> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    const Rulebook b = statutes_test::book(name);
    SolverValues values(three_kings().solver);
    ReportOptions opt;
    opt.max_pieces = 5;
    auto r = analyse(b, russian(), values, opt);
    EXPECT_TRUE(r.ok()) << (r ? "" : r.message());
    it = cache.emplace(name, r ? *r : StatuteReport{}).first;
  }
  return it->second;
}

const ClauseReport* clause_report(const StatuteReport& r, const std::string& id) {
  for (const ClauseReport& c : r.clauses)
    if (c.clause.id == id) return &c;
  return nullptr;
}

void check_clause(const char* book, const std::string& id, const std::function<bool(const Position&)>& covered,
                  int limit) {
  SCOPED_TRACE(std::string(book) + " " + id);
  const ClauseReport* c = clause_report(report_of(book), id);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->clause.limit, limit);
  EXPECT_EQ(c->clause.metric(), CountMetric::DTW);
  const MaterialFigures* m = nullptr;
  for (const MaterialFigures& x : c->materials)
    if (x.material == Material{0, 3, 0, 1}) m = &x;
  ASSERT_NE(m, nullptr);
  const auto own = own_figures(covered, limit);
  std::uint64_t over = 0;
  for (int s = 0; s < 2; ++s) {
    SCOPED_TRACE(s == 0 ? "White to move" : "Black to move");
    const SideFigures& r = m->side[s];
    EXPECT_GT(own[s].positions, 0u);
    EXPECT_EQ(r.positions, own[s].positions);
    EXPECT_EQ(r.white_wins, own[s].white_wins);
    EXPECT_EQ(r.draws, own[s].draws);
    EXPECT_EQ(r.black_wins, own[s].black_wins);
    EXPECT_EQ(r.longest, own[s].longest);
    EXPECT_EQ(r.longest_dtw, own[s].longest_dtw);
    EXPECT_EQ(r.longest_dtc, own[s].longest_dtc);
    EXPECT_EQ(r.over_limit, own[s].over);
    over += own[s].over;
  }
  // The report's longest win really needs that many moves, by the own count.
  ASSERT_TRUE(c->longest.has_value());
  EXPECT_TRUE(covered(c->longest->position));
  EXPECT_EQ(moves_for(three_kings().own_dtw(c->longest->position)), c->longest->moves_needed);
  EXPECT_EQ(c->longest->moves_needed, std::max(own[0].longest, own[1].longest));
  // The verdict and the positions turned into draws.
  EXPECT_EQ(c->over_limit(), over);
  if (over == 0) {
    EXPECT_NE(c->verdict.find("the limit suffices for every won position"), std::string::npos) << c->verdict;
    EXPECT_TRUE(c->saved.empty());
  } else {
    EXPECT_NE(c->verdict.find(std::to_string(over) + " won positions need more moves"), std::string::npos)
        << c->verdict;
    ASSERT_FALSE(c->saved.empty());
    for (const Example& e : c->saved) {
      EXPECT_TRUE(covered(e.position));
      EXPECT_GT(moves_for(three_kings().own_dtw(e.position)), limit);
    }
    ASSERT_TRUE(c->example.has_value());
    EXPECT_GT(moves_for(three_kings().own_dtw(c->example->position)), limit);
  }
}

TEST(ThreeKings, OwnSolverAgreesWithTheTables) {
  const auto& t = three_kings();
  SolverValues values(t.solver);
  ASSERT_EQ(t.roots.size(), 2u * 4960u * 29u);
  int longest = 0;
  for (const Position& p : t.roots) {
    auto dtw = values.value(p, Metric::DTW);
    auto dtc = values.value(p, Metric::DTC);
    ASSERT_TRUE(dtw.ok() && dtc.ok());
    ASSERT_EQ(*dtw, t.own_dtw(p)) << to_fen(russian(), p);
    ASSERT_EQ(*dtc, t.own_dtc(p)) << to_fen(russian(), p);
    if (dtw->wdl == Wdl::Win) longest = std::max<int>(longest, dtw->plies);
  }
  EXPECT_GT(longest, 0);
}

// One test for every clause (each ctest process builds the fixture anew).
TEST(ThreeKings, ReportFiguresMatchTheOwnCount) {
  const auto any = [](const Position&) { return true; };
  const auto off_road = [](const Position& p) { return !black_king_on_road(p); };
  check_clause("russian-federation", "2.1.9.1.3", white_king_on_road, 15);
  check_clause("russian-federation", "2.1.9.1.4", any, 15);
  check_clause("russian-federation", "2.1.9.1.7", black_king_on_road, 5);
  check_clause("ukrainian-64", "6.3.1", black_king_on_road, 5);
  check_clause("ukrainian-64", "6.4", off_road, 15);

  // 6.6 covers 3Kv1K only with the lone king off the main road (6.3.1 takes
  // the rest), counted by DTC.
  const ClauseReport* c = clause_report(report_of("ukrainian-64"), "6.6");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->clause.metric(), CountMetric::DTC);
  bool seen = false;
  for (const MaterialFigures& m : c->materials) {
    if (!(m.material == Material{0, 3, 0, 1})) continue;
    seen = true;
    const auto own = own_figures(off_road, 32);
    for (int s = 0; s < 2; ++s) {
      EXPECT_EQ(m.side[s].positions, own[s].positions);
      EXPECT_EQ(m.side[s].longest, own[s].longest_dtc);
    }
  }
  EXPECT_TRUE(seen) << "3Kv1K missing from 6.6";

  // Missing tables are reported, not counted as zero.
  const ClauseReport* c4 = clause_report(report_of("russian-federation"), "2.1.9.1.4");
  ASSERT_NE(c4, nullptr);
  ASSERT_TRUE(c4->missing.count(5));
  const auto& five = c4->missing.at(5);
  EXPECT_NE(std::find(five.begin(), five.end(), Material{0, 4, 0, 1}), five.end());
  EXPECT_NE(std::find(five.begin(), five.end(), Material{1, 3, 0, 1}), five.end());
  EXPECT_NE(c4->verdict.find("tables missing for 5-piece materials"), std::string::npos) << c4->verdict;
  // A clause with no table at all is not judged (6-7 pieces).
  const ClauseReport* big = clause_report(report_of("russian-federation"), "2.1.9.1.5/6-7");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->positions(), 0u);
  EXPECT_NE(big->verdict.find("not judged"), std::string::npos);
}

}  // namespace
