// The statutes read from table files (as `damka statutes --tables DIR` does)
// give what they give from the in-memory solver.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "damka/generate.hpp"
#include "damka/notation.hpp"
#include "fixture.hpp"

namespace {

using namespace damka;
using statutes_test::russian;

TEST(TableFiles, ReportAndJudgeFromFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("damka_statutes_tables_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  GenerateOptions g;
  g.max_pieces = 3;
  g.out = dir;
  g.threads = 2;
  g.only = Material{1, 1, 0, 1};  // 1K1Mv1K and what it needs (2Kv1K, 1Kv1K, ...)
  auto built = generate(russian(), g);
  ASSERT_TRUE(built.ok()) << built.message();

  Solver solver(russian(), 2);
  solver.solve(Material{1, 1, 0, 1});
  SolverValues memory(solver.rules(), solver);
  TableDirValues files(russian(), dir);
  EXPECT_TRUE(files.has_table(Material{0, 2, 0, 1}));
  EXPECT_FALSE(files.has_table(Material{0, 3, 0, 1}));
  auto none = parse_fen(russian(), "W:WKe1,Kg1,Kc1:BKa7");  // 3Kv1K: no table
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(files.value(*none, Metric::WDL).ok());

  ReportOptions opt;
  opt.max_pieces = 3;
  const Rulebook ua = statutes_test::book("ukrainian-64");
  auto a = analyse(ua, russian(), files, opt);
  auto b = analyse(ua, russian(), memory, opt);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(report_json(*a, russian())["clauses"], report_json(*b, russian())["clauses"]);
  EXPECT_EQ(a->largest_table, 3);

  // 6.3.3: two kings vs one king, 5 moves counted to the end of the game.
  auto p = parse_fen(russian(), "W:WKe1,Kg1:BKa7");
  ASSERT_TRUE(p.ok());
  auto v = judge_with_tables("ukrainian-64", russian(), *p, 0, dir);
  ASSERT_TRUE(v.ok()) << v.message();
  ASSERT_NE(v->deciding_clause(), nullptr);
  EXPECT_EQ(v->deciding_clause()->id, "6.3.3");
  const auto j = verdict_json(*v);
  EXPECT_EQ(j["deciding_clause"], "6.3.3");
  EXPECT_EQ(j["wins_in_time"], v->wins_in_time);
  EXPECT_EQ(j["summary"], v->summary);
  ASSERT_EQ(v->winner, Color::White);  // the longest 2Kv1K win: 4 moves
  EXPECT_TRUE(v->wins_in_time);
  EXPECT_EQ(v->deciding_clause()->moves_needed, 4);
  auto late = judge_with_tables("ukrainian-64", russian(), *p, 2, dir);
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(late->wins_in_time);
  EXPECT_FALSE(judge_with_tables("no-such-book", russian(), *p, 0, dir).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
