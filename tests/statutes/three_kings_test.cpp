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
#include "own_count.hpp"

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

struct Figures {
  std::uint64_t positions = 0, white_wins = 0, draws = 0, black_wins = 0;
  std::uint64_t sa_white_wins = 0, sa_draws = 0, sa_black_wins = 0, into_draws = 0, over = 0;
  int longest = -1, longest_needed = -1;
};

// 40 moves is "no limit" for 3Kv1K (its longest win needs 13).
constexpr int kUnlimited = 40;

// The figures of one clause over 3Kv1K: plain play by the own DTW, the
// statute-aware values by the own (position, counter) count (own_count.hpp);
// 3Kv1K's exits are valued by plain play (no clause here covers 2Kv1K and less
// in its own chain).
std::array<Figures, 2> own_figures(const std::function<bool(const Position&)>& covered, int limit) {
  const auto& t = three_kings();
  SolverValues values(t.solver.rules(), t.solver);
  const statutes_test::Balance b(t.roots, [&](const Position& q) { return values.value(q, Metric::WDL)->wdl; });
  const auto sa = statutes_test::own_values(b, limit);
  const auto free = statutes_test::own_values(b, kUnlimited);
  std::array<Figures, 2> f{};
  for (const Position& p : t.roots) {
    if (!covered(p)) continue;
    Figures& x = f[idx(p.side_to_move)];
    ++x.positions;
    const std::size_t i = b.id.at(p);
    const Wdl s = sa[i].value.wdl;
    if (s == Wdl::Draw) ++x.sa_draws;
    else ((s == Wdl::Win) == (p.side_to_move == Color::White) ? x.sa_white_wins : x.sa_black_wins)++;
    const Value dtw = t.own_dtw(p);
    if (dtw.wdl == Wdl::Draw) {
      ++x.draws;
      continue;
    }
    const Color winner = dtw.wdl == Wdl::Win ? p.side_to_move : opposite(p.side_to_move);
    (winner == Color::White ? x.white_wins : x.black_wins)++;
    x.longest_needed = std::max(x.longest_needed, free[i].needed);
    if (s != Wdl::Draw) {
      x.longest = std::max(x.longest, sa[i].needed);
      continue;
    }
    ++x.into_draws;
    if (free[i].value.wdl != Wdl::Draw) ++x.over;
  }
  return f;
}

const StatuteReport& report_of(const char* name) {
  static std::map<std::string, StatuteReport> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    const Rulebook b = statutes_test::book(name);
    SolverValues values(three_kings().solver.rules(), three_kings().solver);
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
  const MaterialFigures* m = nullptr;
  for (const MaterialFigures& x : c->materials)
    if (x.material == Material{0, 3, 0, 1}) m = &x;
  ASSERT_NE(m, nullptr);
  const auto own = own_figures(covered, limit);
  std::uint64_t into = 0, over = 0;
  for (int s = 0; s < 2; ++s) {
    SCOPED_TRACE(s == 0 ? "White to move" : "Black to move");
    const SideFigures& r = m->side[s];
    EXPECT_GT(own[s].positions, 0u);
    EXPECT_EQ(r.positions, own[s].positions);
    EXPECT_EQ(r.white_wins, own[s].white_wins);
    EXPECT_EQ(r.draws, own[s].draws);
    EXPECT_EQ(r.black_wins, own[s].black_wins);
    EXPECT_EQ(r.sa_white_wins, own[s].sa_white_wins);
    EXPECT_EQ(r.sa_draws, own[s].sa_draws);
    EXPECT_EQ(r.sa_black_wins, own[s].sa_black_wins);
    EXPECT_EQ(r.into_draws, own[s].into_draws);
    EXPECT_EQ(r.over_limit, own[s].over);
    EXPECT_EQ(r.longest, own[s].longest);
    EXPECT_EQ(r.longest_needed, own[s].longest_needed);
    into += own[s].into_draws;
    over += own[s].over;
  }
  // The report's longest win is covered and really needs that many moves.
  ASSERT_TRUE(c->longest.has_value());
  EXPECT_TRUE(covered(c->longest->position));
  EXPECT_EQ(c->longest->moves_needed, std::max(own[0].longest, own[1].longest));
  EXPECT_LE(c->longest->moves_needed, limit);
  // The verdict and the positions turned into draws.
  EXPECT_EQ(c->into_draws(), into);
  EXPECT_EQ(c->over_limit(), over);
  if (into == 0) {
    EXPECT_NE(c->verdict.find("the limit suffices"), std::string::npos) << c->verdict;
    EXPECT_TRUE(c->saved.empty());
  } else {
    EXPECT_NE(c->verdict.find(std::to_string(into) + " positions won in plain play are turned into draws"),
              std::string::npos)
        << c->verdict;
  }
  // Examples of wins turned into draws: their line stays in the balance
  // until its last move, and lasts more moves of the winner than the limit.
  for (const Example& e : c->saved) {
    EXPECT_TRUE(covered(e.position));
    EXPECT_GT(e.moves_needed, limit);
    ASSERT_FALSE(e.line.empty());
    Position p = e.position;
    int winner_moves = 0;
    const Color winner = e.dtw.wdl == Wdl::Win ? p.side_to_move : opposite(p.side_to_move);
    for (std::size_t i = 0; i < e.line.size(); ++i) {
      if (i + 1 < e.line.size()) {
        EXPECT_FALSE(e.line[i].is_capture() || e.line[i].promotes);
      }
      if (p.side_to_move == winner) ++winner_moves;
      p = apply(p, e.line[i]);
      if (i + 1 < e.line.size()) {
        EXPECT_EQ(material_of(p), material_of(e.position));
      }
    }
    EXPECT_EQ(winner_moves, e.moves_needed);
  }
}

TEST(ThreeKings, OwnSolverAgreesWithTheTables) {
  const auto& t = three_kings();
  SolverValues values(t.solver.rules(), t.solver);
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
  // the rest); its count ends at a capture or promotion.
  check_clause("ukrainian-64", "6.6", off_road, 32);
  // With a tighter limit some wins turn into draws, with lines (the same
  // computation; only the limit differs).
  {
    Rulebook tight = statutes_test::book("russian-federation");
    for (Clause& c : tight.clauses)
      if (c.id == "2.1.9.1.4") c.limit = 7;
    tight.name = "russian-federation-tight";
    SolverValues values(three_kings().solver.rules(), three_kings().solver);
    ReportOptions opt;
    opt.max_pieces = 4;
    auto r = analyse(tight, russian(), values, opt);
    ASSERT_TRUE(r.ok()) << r.message();
    const ClauseReport* c = clause_report(*r, "2.1.9.1.4");
    ASSERT_NE(c, nullptr);
    const auto own = own_figures(any, 7);
    EXPECT_EQ(c->over_limit(), own[0].over + own[1].over);
    EXPECT_GT(c->over_limit(), 0u);
    ASSERT_FALSE(c->saved.empty());
    ASSERT_TRUE(c->example.has_value());
    EXPECT_EQ(c->example->moves_needed, 8);  // the shortest win over the limit
    for (const Example& e : c->saved) {
      Position p = e.position;
      for (std::size_t i = 0; i + 1 < e.line.size(); ++i) {
        p = apply(p, e.line[i]);
        EXPECT_EQ(material_of(p), material_of(e.position));
      }
      EXPECT_GT(e.moves_needed, 7);
    }
  }

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
