// Cross-check: the retrograde Solver against the independent brute-force
// solver (brute_force.hpp), position by position, for every position of the
// root material with both sides to move, in both colour orientations, for
// WDL, DTW and DTC.
#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <cstdio>
#include <string>
#include <vector>

#include "damka/material.hpp"
#include "damka/notation.hpp"
#include "damka/solver.hpp"
#include "generator/brute_force.hpp"

namespace damka::brute {
namespace {

struct Case {
  Variant variant;
  Counts counts;
};

std::string case_name(const Case& c) { return std::string(rules_of(c.variant).name) + "_" + c.counts.name(); }
void PrintTo(const Case& c, std::ostream* os) { *os << case_name(c); }

std::string wdl_name(const std::optional<Value>& v) {
  if (!v) return "none";
  const std::string s = v->wdl == Wdl::Win ? "W" : v->wdl == Wdl::Loss ? "L" : "D";
  return v->plies == 0 ? s : s + std::to_string(v->plies) + "(?)";
}

// Every material with both sides present and 2 or 3 pieces, white side first
// as format's canonical rule has it (more pieces, or as many and at least as
// many kings); the flipped positions cover the other orientation.
std::vector<Counts> small_materials(bool with_non_canonical) {
  std::vector<Counts> out;
  for (int pieces = 2; pieces <= 3; ++pieces)
    for (int white = 1; white < pieces; ++white)
      for (int wk = 0; wk <= white; ++wk)
        for (int bk = 0; bk <= pieces - white; ++bk) {
          const Counts c{white - wk, wk, pieces - white - bk, bk};
          const int black = pieces - white;
          const bool canonical = white != black ? white > black : wk >= bk;
          if (canonical || with_non_canonical) out.push_back(c);
        }
  return out;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (Variant v : all_variants())
    // Russian also solves every non-canonical orientation directly.
    for (const Counts& c : small_materials(v == Variant::Russian)) out.push_back({v, c});
  // Four pieces: a few seconds each for the brute force (Release, one core).
  const std::vector<Case> four = {
      {Variant::Russian, {0, 3, 0, 1}},     // 3 kings vs king (0.4 s)
      {Variant::Russian, {0, 2, 0, 2}},     // 2 kings vs 2 kings (0.4 s)
      {Variant::Russian, {1, 2, 0, 1}},     // 2 kings + man vs king (1.7 s)
      {Variant::Russian, {0, 2, 1, 1}},     // 2 kings vs king + man (2.0 s)
      {Variant::Russian, {1, 1, 1, 1}},     // king + man vs king + man (3.6 s)
      {Variant::Brazilian, {0, 3, 0, 1}},   // majority capture (0.6 s)
      {Variant::Brazilian, {0, 2, 0, 2}},   // (0.65 s)
      {Variant::Mozambique, {0, 3, 0, 1}},  // (0.6 s)
      {Variant::Mozambique, {0, 2, 1, 1}},  // value capture: king before man (1.85 s)
      {Variant::Thai, {0, 3, 0, 1}},        // (0.4 s)
      {Variant::Thai, {0, 2, 0, 2}},        // immediate removal (0.5 s)
      {Variant::English, {0, 3, 0, 1}},     // (0.25 s)
      {Variant::English, {0, 2, 0, 2}},     // (0.65 s)
      {Variant::English, {1, 1, 1, 1}},     // deep: DTW up to 103 plies (6.8 s)
  };
  out.insert(out.end(), four.begin(), four.end());
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr int kMaxFailures = 8;

class SolverVsBrute : public ::testing::TestWithParam<Case> {};

TEST_P(SolverVsBrute, EveryPositionBothSidesToMove) {
  const Case& c = GetParam();
  const Rules& rules = rules_of(c.variant);

  const auto t0 = std::chrono::steady_clock::now();
  const BruteForce bf(rules, c.counts);
  const double brute_seconds = seconds_since(t0);
  ASSERT_EQ(bf.stats().dtc_missing, 0u) << "brute force left decided positions without DTC";
  ASSERT_EQ(bf.num_roots(), enumerate_positions(c.counts).size());

  const auto t1 = std::chrono::steady_clock::now();
  Solver solver(rules);
  const Material material{c.counts.wm, c.counts.wk, c.counts.bm, c.counts.bk};
  solver.solve(material);
  const double solver_seconds = seconds_since(t1);

  const auto t2 = std::chrono::steady_clock::now();
  int failures = 0;
  std::uint64_t compared = 0;
  for (std::size_t u = 0; u < bf.num_roots() && failures < kMaxFailures; ++u) {
    const Value dtw = bf.dtw_of_node(u);
    const Value dtc = bf.dtc_of_node(u);
    const Position& p = bf.position(u);
    for (const bool flip : {false, true}) {
      // The colour-reversed position has the same value for the side to move.
      const Position q = flip ? p.flipped() : p;
      const std::optional<Value> got_wdl = solver.value(q, Metric::WDL);
      const std::optional<Value> got_dtw = solver.value(q, Metric::DTW);
      const std::optional<Value> got_dtc = solver.value(q, Metric::DTC);
      ++compared;
      if (got_wdl != dtw.wdl_only() || got_dtw != dtw || got_dtc != dtc) {
        ++failures;
        ADD_FAILURE() << rules.name << " " << c.counts.name() << (flip ? " (colours reversed)" : "") << ": "
                      << to_fen(rules, q) << "\n  brute force: wdl " << wdl_name(dtw.wdl_only()) << "  dtw "
                      << to_string(dtw) << "  dtc " << to_string(dtc) << "\n  solver:      wdl "
                      << wdl_name(got_wdl) << "  dtw " << to_string(got_dtw) << "  dtc " << to_string(got_dtc)
                      << (failures == kMaxFailures ? "\n  (stopping after this many failures)" : "");
        break;
      }
    }
  }
  const double compare_seconds = seconds_since(t2);
  std::printf("[ timing   ] %-22s roots %8llu  graph %8llu  brute %.2fs  solver %.2fs  compare %.2fs\n",
              case_name(c).c_str(), static_cast<unsigned long long>(bf.num_roots()),
              static_cast<unsigned long long>(bf.size()), brute_seconds, solver_seconds, compare_seconds);
  EXPECT_EQ(compared, failures == 0 ? 2 * bf.num_roots() : compared);
}

INSTANTIATE_TEST_SUITE_P(Materials, SolverVsBrute, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return case_name(info.param); });

}  // namespace
}  // namespace damka::brute
