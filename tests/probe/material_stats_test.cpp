// material_stats() (damka info --stats) against the tests' own brute-force
// solver (tests/generator/brute_force.hpp): in every variant (Filipino
// reading Brazilian's tables), for every material up to 4 pieces, the wins,
// draws and losses of every position the table covers (by side to move), the
// capture positions, the longest win by DTW and by DTC, how many positions
// have it, the lowest slot among them, and its line; the sums by piece
// count.  Also: the same answer for any thread count and material order;
// errors for missing tables and bad arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "damka/material_stats.hpp"
#include "damka/notation.hpp"
#include "damka/slots.hpp"
#include "generator/brute_force.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

using brute::BruteForce;
using brute::Counts;

// Filipino plays Brazilian's game: it reads the Brazilian tables.
Variant table_variant(Variant v) { return v == Variant::Filipino ? Variant::Brazilian : v; }

// Every canonical material with pieces on both sides and 2..n pieces, by
// pieces, then in Material order (as materials_with_tables lists them).
std::vector<Material> all_materials(int n) {
  std::vector<Material> out;
  for (int pieces = 2; pieces <= n; ++pieces)
    for (const Material& m : materials_with(pieces, true))
      if (m.is_canonical()) out.push_back(m);
  return out;
}

// What the brute force says about the positions one table covers.
struct Want {
  WdlCounts by_side[2];
  std::uint64_t captures = 0;
  struct Longest {
    bool found = false;
    int plies = 0;
    std::uint64_t count = 0, slot = 0;
  } dtw, dtc;
};

void see(Want::Longest& l, int plies, std::uint64_t slot) {
  if (!l.found || plies > l.plies) l = {true, plies, 1, slot};
  else if (plies == l.plies) {
    ++l.count;
    l.slot = std::min(l.slot, slot);
  }
}

// The positions of a material's table, by the brute force's own enumeration:
// both sides to move, White only for a symmetric material.
std::vector<Position> table_positions(const Material& m) {
  const Counts c{m.wm, m.wk, m.bm, m.bk};
  return m.is_symmetric() ? brute::enumerate_positions(c, Color::White) : brute::enumerate_positions(c);
}

// The line of an example against the brute force's values: `plies` moves,
// each keeping the value one ply shorter (DTW: to the end of the game; DTC:
// the last move, and only it, captures or promotes, or the game ends).
void check_line(const BruteForce& bf, const LongestWin& w, Metric metric, const std::string& what) {
  const Rules& r = bf.rules();
  ASSERT_EQ(w.line_status, ProbeStatus::Ok) << what;
  ASSERT_EQ(w.line.size(), w.plies) << what << " " << to_fen(r, w.position);
  Position q = w.position;
  for (std::size_t i = 0; i < w.line.size(); ++i) {
    const auto v = metric == Metric::DTW ? bf.dtw(q) : bf.dtc(q);
    ASSERT_TRUE(v) << what;
    EXPECT_EQ(v->plies, w.plies - i) << what << " ply " << i << " " << to_fen(r, q);
    EXPECT_EQ(v->wdl, i % 2 == 0 ? Wdl::Win : Wdl::Loss) << what << " ply " << i;
    MoveList legal;
    generate_moves(r, q, legal);
    ASSERT_TRUE(std::any_of(legal.begin(), legal.end(), [&](const Move& x) { return x.same_result(w.line[i]); }))
        << what << ": illegal move, ply " << i;
    const bool conversion = w.line[i].is_capture() || w.line[i].promotes;
    if (metric == Metric::DTC && conversion) {
      EXPECT_EQ(i + 1, w.line.size()) << what << ": converts early";
    }
    q = apply(q, w.line[i]);
  }
  const bool converted = !w.line.empty() && (w.line.back().is_capture() || w.line.back().promotes);
  if (metric == Metric::DTW || !converted) {
    MoveList legal;
    if (q.pieces(q.side_to_move) != 0) generate_moves(r, q, legal);
    EXPECT_TRUE(legal.empty()) << what << ": the line does not end the game: " << to_fen(r, q);
  }
}

void compare(const BruteForce& bf, const Material& m, const Want& want, const MaterialStats& got) {
  const std::string what = std::string(bf.rules().name) + " " + m.name();
  EXPECT_EQ(got.material, m) << what;
  EXPECT_EQ(got.sides, m.is_symmetric() ? 1 : 2) << what;
  EXPECT_EQ(got.positions, table_slots(m)) << what;
  EXPECT_EQ(got.by_side[0], want.by_side[0]) << what << " (white to move)";
  EXPECT_EQ(got.by_side[1], want.by_side[1]) << what << " (black to move)";
  EXPECT_EQ(got.total.positions(), got.positions) << what;
  EXPECT_EQ(got.captures, want.captures) << what;
  EXPECT_TRUE(got.has_dtw && got.has_dtc) << what;
  const std::pair<const LongestWin*, const Want::Longest*> longest[2] = {{&got.dtw, &want.dtw},
                                                                             {&got.dtc, &want.dtc}};
  for (int i = 0; i < 2; ++i) {
    const auto& [g, w] = longest[i];
    const Metric metric = i == 0 ? Metric::DTW : Metric::DTC;
    const std::string label = what + " longest " + std::string(metric_name(metric));
    ASSERT_EQ(g->found, w->found) << label;
    if (!w->found) continue;
    EXPECT_EQ(g->plies, w->plies) << label;
    EXPECT_EQ(g->count, w->count) << label;
    EXPECT_EQ(g->slot, w->slot) << label;
    EXPECT_EQ(g->material, m) << label;
    EXPECT_EQ(g->position, position_at(m, w->slot)) << label;
    check_line(bf, *g, metric, label);
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The materials judged: every one up to `pieces` pieces, and `extra` (more
// pieces).  The tables hold every material up to 4 pieces.
struct Case {
  Variant variant;
  int pieces;
  std::vector<Material> extra;
};
void PrintTo(const Case& c, std::ostream* os) { *os << rules_of(c.variant).name << "_" << c.pieces; }

class StatsVsBrute : public ::testing::TestWithParam<Case> {};

// The brute force solves the materials judged in groups that share their
// successors (the same number of pieces on each side), every position of
// each group's tables at once.
TEST_P(StatsVsBrute, EveryMaterialCountsAndLongestWins) {
  const Case& c = GetParam();
  const Rules& rules = rules_of(c.variant);
  const auto t0 = std::chrono::steady_clock::now();
  const auto& dir = tables(table_variant(c.variant), 4);
  const double generate_s = seconds_since(t0);
  auto tb = Tablebase::open(rules, dir);
  ASSERT_TRUE(tb.ok()) << tb.message();
  const auto materials = materials_with_tables(**tb);
  ASSERT_TRUE(materials.ok()) << materials.message();
  ASSERT_EQ(*materials, all_materials(4));
  auto judged = [&](const Material& m) {
    return m.pieces() <= c.pieces || std::find(c.extra.begin(), c.extra.end(), m) != c.extra.end();
  };

  const auto t1 = std::chrono::steady_clock::now();
  std::vector<MaterialStats> stats;
  StatsOptions options;
  options.threads = 2;
  for (const Material& m : *materials) {
    auto s = material_stats(**tb, m, options);
    ASSERT_TRUE(s.ok()) << m.name() << ": " << s.message();
    stats.push_back(std::move(*s));
  }
  const double stats_s = seconds_since(t1);

  const auto t2 = std::chrono::steady_clock::now();
  std::map<std::pair<int, int>, std::vector<std::size_t>> groups;  // (white, black) pieces -> materials
  for (std::size_t i = 0; i < materials->size(); ++i)
    if (judged((*materials)[i])) groups[{(*materials)[i].white(), (*materials)[i].black()}].push_back(i);
  for (const auto& [sides, members] : groups) {
    std::vector<Position> roots;
    std::vector<std::size_t> begin;
    for (std::size_t i : members) {
      begin.push_back(roots.size());
      const auto ps = table_positions((*materials)[i]);
      roots.insert(roots.end(), ps.begin(), ps.end());
    }
    begin.push_back(roots.size());
    const BruteForce bf(rules, roots);
    ASSERT_EQ(bf.num_roots(), roots.size());
    ASSERT_EQ(bf.stats().dtc_missing, 0u);
    for (std::size_t k = 0; k < members.size(); ++k) {
      const Material& m = (*materials)[members[k]];
      const MaterialIndex index(m);
      Want want;
      for (std::size_t u = begin[k]; u < begin[k + 1]; ++u) {
        const Position& p = bf.position(u);  // roots come first, in order
        const Value dtw = bf.dtw_of_node(u), dtc = bf.dtc_of_node(u);
        WdlCounts& side = want.by_side[p.side_to_move == Color::White ? 0 : 1];
        if (has_capture(rules, p)) ++want.captures;
        if (dtw.wdl == Wdl::Draw) {
          ++side.draws;
          continue;
        }
        if (dtw.wdl == Wdl::Loss) {
          ++side.losses;
          continue;
        }
        ++side.wins;
        const std::uint64_t slot = locate_slot(index, p);
        see(want.dtw, dtw.plies, slot);
        see(want.dtc, dtc.plies, slot);
      }
      compare(bf, m, want, stats[members[k]]);
    }
  }
  const double brute_s = seconds_since(t2);

  // By piece count: sums, and the longest of the materials.
  const auto by = stats_by_pieces(stats);
  ASSERT_EQ(by.size(), 3u);
  for (const PieceCountStats& p : by) {
    WdlCounts total;
    std::uint64_t positions = 0;
    int n = 0;
    std::uint16_t longest_dtw = 0;
    for (const MaterialStats& s : stats) {
      if (s.material.pieces() != p.pieces) continue;
      ++n;
      total += s.total;
      positions += s.positions;
      if (s.dtw.found) longest_dtw = std::max(longest_dtw, s.dtw.plies);
    }
    EXPECT_EQ(p.materials, n);
    EXPECT_EQ(p.total, total);
    EXPECT_EQ(p.positions, positions);
    EXPECT_EQ(p.dtw.plies, longest_dtw);
  }
  std::printf("[ timing   ] %s: tables %.2fs, stats %.2fs, brute force %.2fs\n", std::string(rules.name).c_str(),
              generate_s, stats_s, brute_s);
}

// Every variant: every material up to 4 pieces (13-15 s of brute force
// each; one ctest case per variant, so they run side by side).
std::vector<Case> cases() {
  std::vector<Case> out;
  for (Variant v : all_variants()) out.push_back({v, 4, {}});
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllVariants, StatsVsBrute, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(rules_of(info.param.variant).name) + "_" +
                                  std::to_string(info.param.pieces);
                         });

// The same statistics, examples and lines for 1, 2 and 3 threads.
TEST(MaterialStats, IndependentOfThreads) {
  auto tb = Tablebase::open(rules_of(Variant::Russian), tables(Variant::Russian, 4));
  ASSERT_TRUE(tb.ok()) << tb.message();
  for (const char* name : {"2Kv1K1M", "1K2Mv1K", "2Mv2M"}) {
    std::vector<MaterialStats> runs;
    for (int threads : {1, 2, 3}) {
      StatsOptions o;
      o.threads = threads;
      auto s = material_stats(**tb, mat(name), o);
      ASSERT_TRUE(s.ok()) << s.message();
      runs.push_back(std::move(*s));
    }
    for (const MaterialStats& s : runs) {
      EXPECT_EQ(s.total, runs[0].total) << name;
      EXPECT_EQ(s.captures, runs[0].captures) << name;
      for (const auto& [a, b] : {std::pair{&s.dtw, &runs[0].dtw}, std::pair{&s.dtc, &runs[0].dtc}}) {
        EXPECT_EQ(a->plies, b->plies) << name;
        EXPECT_EQ(a->count, b->count) << name;
        EXPECT_EQ(a->slot, b->slot) << name;
        ASSERT_EQ(a->line.size(), b->line.size()) << name;
        for (std::size_t i = 0; i < a->line.size(); ++i) EXPECT_TRUE(a->line[i].same_result(b->line[i])) << name;
      }
    }
    // Without lines: the same counts, no line.
    StatsOptions o;
    o.lines = false;
    auto s = material_stats(**tb, mat(name), o);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(s->total, runs[0].total);
    EXPECT_EQ(s->dtw.slot, runs[0].dtw.slot);
    EXPECT_TRUE(s->dtw.line.empty());
  }
}

// A journal's record (stats_record) gives back the same statistics, the
// examples' positions and lines included; anything else is refused.
TEST(MaterialStats, RecordGivesTheSameStatistics) {
  auto tb = Tablebase::open(rules_of(Variant::Russian), tables(Variant::Russian, 4));
  ASSERT_TRUE(tb.ok()) << tb.message();
  for (const Material& m : all_materials(4)) {
    auto s = material_stats(**tb, m);
    ASSERT_TRUE(s.ok()) << s.message();
    auto back = stats_from_record(**tb, m, stats_record(*s));
    ASSERT_TRUE(back.ok()) << m.name() << ": " << back.message();
    EXPECT_EQ(back->sides, s->sides) << m.name();
    EXPECT_EQ(back->positions, s->positions) << m.name();
    EXPECT_EQ(back->by_side[0], s->by_side[0]) << m.name();
    EXPECT_EQ(back->by_side[1], s->by_side[1]) << m.name();
    EXPECT_EQ(back->total, s->total) << m.name();
    EXPECT_EQ(back->captures, s->captures) << m.name();
    EXPECT_EQ(back->has_dtw, s->has_dtw) << m.name();
    EXPECT_EQ(back->has_dtc, s->has_dtc) << m.name();
    for (const auto& [a, b] : {std::pair{&back->dtw, &s->dtw}, std::pair{&back->dtc, &s->dtc}}) {
      EXPECT_EQ(a->found, b->found) << m.name();
      EXPECT_EQ(a->plies, b->plies) << m.name();
      EXPECT_EQ(a->count, b->count) << m.name();
      EXPECT_EQ(a->slot, b->slot) << m.name();
      EXPECT_EQ(a->material, b->material) << m.name();
      EXPECT_EQ(a->position, b->position) << m.name();
      EXPECT_EQ(a->line_status, b->line_status) << m.name();
      ASSERT_EQ(a->line.size(), b->line.size()) << m.name();
      for (std::size_t i = 0; i < a->line.size(); ++i) EXPECT_TRUE(a->line[i].same_result(b->line[i])) << m.name();
    }
  }
  auto s = material_stats(**tb, mat("2Kv1K1M"));
  ASSERT_TRUE(s.ok());
  const std::string good = stats_record(*s);
  for (const std::string& bad : {std::string("{}"), std::string("[1,2]"), std::string("not json"),
                                 stats_record(*material_stats(**tb, mat("2Mv2M")))}) {
    auto r = stats_from_record(**tb, mat("2Kv1K1M"), bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.code(), ErrorCode::InvalidArgument) << bad;
  }
  // Counts that do not add up to the material's positions.
  std::string wrong = good;
  wrong.replace(wrong.find("\"captures\""), 0, "\"x\":0,");
  EXPECT_TRUE(stats_from_record(**tb, mat("2Kv1K1M"), wrong).ok());  // an extra field is harmless
  const auto at = good.find("\"white_to_move\":[") + 17;
  wrong = good;
  wrong.insert(at, "1");
  EXPECT_EQ(stats_from_record(**tb, mat("2Kv1K1M"), wrong).code(), ErrorCode::InvalidArgument) << wrong;
}

// By piece count: the same whatever the order of the materials given.
TEST(MaterialStats, ByPiecesIndependentOfOrder) {
  auto tb = Tablebase::open(rules_of(Variant::Russian), tables(Variant::Russian, 3));
  ASSERT_TRUE(tb.ok()) << tb.message();
  std::vector<MaterialStats> all;
  for (const Material& m : all_materials(3)) {
    auto s = material_stats(**tb, m);
    ASSERT_TRUE(s.ok()) << s.message();
    all.push_back(std::move(*s));
  }
  auto forward = stats_by_pieces(all);
  std::reverse(all.begin(), all.end());
  auto backward = stats_by_pieces(all);
  ASSERT_EQ(forward.size(), 2u);
  ASSERT_EQ(backward.size(), 2u);
  for (std::size_t i = 0; i < forward.size(); ++i) {
    EXPECT_EQ(forward[i].pieces, static_cast<int>(i) + 2);
    EXPECT_EQ(forward[i].total, backward[i].total);
    EXPECT_EQ(forward[i].dtw.material, backward[i].dtw.material);
    EXPECT_EQ(forward[i].dtw.slot, backward[i].dtw.slot);
    EXPECT_EQ(forward[i].dtw.count, backward[i].dtw.count);
    EXPECT_EQ(forward[i].dtc.material, backward[i].dtc.material);
    EXPECT_EQ(forward[i].dtc.count, backward[i].dtc.count);
  }
}

// A table a capture position needs is missing: NotFound, naming it; the
// material's own WDL file missing: NotFound; DTW and DTC files missing: no
// longest win, the counts still there; a material that is not canonical:
// refused.
TEST(MaterialStats, MissingTablesAndBadArguments) {
  const Rules& rules = rules_of(Variant::Russian);
  const auto dir = copy_tables(tables(Variant::Russian, 3), rules, "stats_missing");
  std::filesystem::remove(table_path(dir, rules, mat("1Kv1M"), Metric::DTW));
  std::filesystem::remove(table_path(dir, rules, mat("2Mv1M"), Metric::DTW));
  std::filesystem::remove(table_path(dir, rules, mat("2Mv1M"), Metric::DTC));
  std::filesystem::remove(table_path(dir, rules, mat("2Kv1K"), Metric::WDL));
  auto tb = Tablebase::open(rules, dir);
  ASSERT_TRUE(tb.ok()) << tb.message();

  // 2Kv1M's captures lead to 2Kv0 (over) and, by Black, to 1Kv1M.
  auto s = material_stats(**tb, mat("2Kv1M"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::NotFound) << s.message();
  EXPECT_NE(s.message().find("1Kv1M"), std::string::npos) << s.message();

  s = material_stats(**tb, mat("2Kv1K"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::NotFound) << s.message();
  EXPECT_NE(s.message().find("2Kv1K.wdl"), std::string::npos) << s.message();

  auto full = Tablebase::open(rules, tables(Variant::Russian, 3));
  ASSERT_TRUE(full.ok());
  const auto want = material_stats(**full, mat("2Mv1M"));
  ASSERT_TRUE(want.ok()) << want.message();
  s = material_stats(**tb, mat("2Mv1M"));
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(s->has_dtw || s->has_dtc || s->dtw.found || s->dtc.found);
  EXPECT_EQ(s->total, want->total);

  for (const char* bad : {"1Kv2K", "2Kv0"}) {
    s = material_stats(**tb, mat(bad));
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), ErrorCode::Other) << bad;
  }
  const auto listed = materials_with_tables(**tb);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(std::count(listed->begin(), listed->end(), mat("2Kv1K")), 0);
  EXPECT_EQ(listed->size(), all_materials(3).size() - 1);
}

}  // namespace
}  // namespace damka::probe_test
