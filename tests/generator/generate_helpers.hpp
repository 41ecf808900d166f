// Shared by the generation tests: file contents and generate() options.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "damka/engine.hpp"
#include "damka/generate.hpp"
#include "damka/solver.hpp"

namespace damka::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline GenerateOptions options(const std::filesystem::path& out, int pieces, int threads) {
  GenerateOptions o;
  o.max_pieces = pieces;
  o.out = out;
  o.threads = threads;
  return o;
}

// The materials m converts into, solved by `solver` (which keeps their
// tables: it must outlive the result), as build_material reads them.
inline MemorySuccessors solved_successors(Solver& solver, const Material& m) {
  MemorySuccessors succ;
  for (const Material& s : successors(m)) {
    solver.solve(s);
    succ.add(s, &solver.table(s)->dtw);
  }
  return succ;
}

// A build's codes, every pass in slot order (a ValueSink for build_material).
class CollectSink : public ValueSink {
 public:
  std::vector<std::vector<std::uint16_t>> codes;
  Status add(std::uint64_t, std::span<const std::span<const std::uint16_t>> c) override {
    codes.resize(c.size());
    for (std::size_t k = 0; k < c.size(); ++k) codes[k].insert(codes[k].end(), c[k].begin(), c[k].end());
    return {};
  }
};

// One build_material run: its codes and counts.
struct Built {
  std::vector<std::vector<std::uint16_t>> codes;
  BuildStats stats;
};

inline Built build(const Rules& r, const Material& m, const SuccessorSource& succ, const BuildOptions& opt) {
  CollectSink sink;
  Built b;
  const Status s = build_material(r, m, succ, sink, opt, b.stats);
  EXPECT_TRUE(s.ok()) << s.message();
  b.codes = std::move(sink.codes);
  return b;
}

// Two builds agree on every code of every pass and on their counts.
inline void expect_same(const Built& a, const Built& b, const std::string& what) {
  ASSERT_EQ(a.codes.size(), b.codes.size()) << what;
  ASSERT_FALSE(a.codes.empty()) << what;
  for (std::size_t i = 0; i < a.codes.size(); ++i) {
    ASSERT_EQ(a.codes[i].size(), b.codes[i].size()) << what;
    std::size_t differ = 0, first = 0;
    for (std::size_t k = 0; k < a.codes[i].size(); ++k)
      if (a.codes[i][k] != b.codes[i][k] && differ++ == 0) first = k;
    EXPECT_EQ(differ, 0u) << what << ": pass " << i << ", first at slot " << first << " (" << a.codes[i][first]
                          << " against " << b.codes[i][first] << ")";
  }
  for (int side = 0; side < 2; ++side) {
    EXPECT_EQ(a.stats.side[side].wins, b.stats.side[side].wins) << what;
    EXPECT_EQ(a.stats.side[side].draws, b.stats.side[side].draws) << what;
    EXPECT_EQ(a.stats.side[side].losses, b.stats.side[side].losses) << what;
    EXPECT_EQ(a.stats.side[side].longest_win, b.stats.side[side].longest_win) << what;
    EXPECT_EQ(a.stats.side[side].longest_win_dtc, b.stats.side[side].longest_win_dtc) << what;
  }
}

}  // namespace damka::test
