// A level of many units whose move graphs do not fit one per thread is
// solved by units with graphs on as many threads as fit beside the store
// (MemoryPlan::levels_partly_graphed), the others without: the plan says
// so at some budget, the build at that budget solves its levels by units,
// with the values of one thread, and a budget with room for every graph
// needs no such level.
#include <gtest/gtest.h>

#include <cstdint>

#include "damka/engine.hpp"
#include "damka/solver.hpp"
#include "generator/generate_helpers.hpp"

namespace damka {
namespace {

using test::Built;
using test::build;
using test::expect_same;

TEST(PartialGraph, SomeThreadsKeepAGraphWhereNotAllFit) {
  const Rules& r = rules_of(Variant::Russian);
  Solver solver(r);
  // Levels of 4 units (a unit per square of a row of the man): solved by
  // units with two threads, whose graphs (some 5 MB each) outweigh the
  // store.
  const Material m = *Material::parse("2K1Mv1K");
  const MemorySuccessors succ = test::solved_successors(solver, m);
  BuildOptions one;
  one.mark_derived = true;
  one.metrics = MetricSet{true, true, true};
  one.threads = 1;
  const Built want = build(r, m, succ, one);
  constexpr int kThreads = 2;
  const auto mode = [](LevelMode x) { return static_cast<std::size_t>(x); };
  // From the minimum up, in steps far smaller than a unit's graph: a budget
  // where some level keeps graphs on one thread only, and every level
  // keeps some.
  const std::uint64_t low = plan_memory(m, one.metrics, kThreads, 0, 0).minimum, high = low + (64 << 20);
  std::uint64_t budget = 0;
  for (std::uint64_t b = low; b < high && budget == 0; b += 16 << 10) {
    const MemoryPlan plan = plan_memory(m, one.metrics, kThreads, 0, b);
    if (plan.levels_partly_graphed > 0 && plan.levels_by_mode[mode(LevelMode::Units)] == 0) {
      budget = b;
      EXPECT_FALSE(plan.spill) << b;
    }
  }
  ASSERT_NE(budget, 0u) << "no budget between " << low << " and " << high << " keeps graphs on some threads";
  const MemoryPlan roomy = plan_memory(m, one.metrics, kThreads, 0, std::uint64_t{1} << 40);
  EXPECT_EQ(roomy.levels_partly_graphed, 0u);
  BuildOptions opt = one;
  opt.threads = kThreads;
  opt.memory_budget = budget;
  const Built got = build(r, m, succ, opt);
  EXPECT_GT(got.stats.profile[Phase::Units].wall, 0.0) << "no level was solved by units";
  EXPECT_EQ(got.stats.profile[Phase::Team].wall, 0.0) << "a level was solved by a team";
  expect_same(want, got, "2K1Mv1K, 2 threads, a graph on one");
}

}  // namespace
}  // namespace damka
