// EdgeGauge (generator/src/edge_gauge.hpp): the edges per position to plan
// a move graph for, from the units solved with one: the most any had, a
// quarter above it, rounded up, plus one; nothing before an edge is seen.
#include "edge_gauge.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace damka::engine_detail {
namespace {

TEST(EdgeGauge, SaysNothingBeforeAnEdge) {
  EdgeGauge g;
  EXPECT_EQ(g.edges(), 0u);
  g.add(0, 100);  // a unit of capture positions only
  g.add(5, 0);    // no positions: ignored
  EXPECT_EQ(g.edges(), 0u);
}

TEST(EdgeGauge, PlansAQuarterAboveTheMostSeenPlusOne) {
  EdgeGauge g;
  g.add(800, 100);  // 8 a position: 10, plus one
  EXPECT_EQ(g.edges(), 11u);
  g.add(400, 100);  // fewer: the most stays
  EXPECT_EQ(g.edges(), 11u);
  g.add(1001, 100);  // 10.01: 12.5125 rounded up, plus one
  EXPECT_EQ(g.edges(), 14u);
}

TEST(EdgeGauge, KeepsTheMostOfEveryThread) {
  EdgeGauge g;
  std::vector<std::thread> threads;
  for (int t = 1; t <= 4; ++t)
    threads.emplace_back([&g, t] {
      for (int i = 0; i < 1000; ++i) g.add(static_cast<std::uint64_t>(t * 4 * 100), 100);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(g.edges(), 21u);  // 16 a position
}

}  // namespace
}  // namespace damka::engine_detail
