// KeptScratch (engine.hpp): the threads' unit scratch passed from one
// build_material to the next gives the same values as fresh scratch,
// whatever the materials before (larger, smaller, kings-only, other passes,
// tight budgets), and what it holds when a build starts is within that
// build's plan.
#include <gtest/gtest.h>

#include <string>

#include "damka/engine.hpp"
#include "damka/solver.hpp"
#include "generator/generate_helpers.hpp"

namespace damka {
namespace {

using test::build;
using test::expect_same;

TEST(KeptScratch, SameValuesAsFreshScratchWhateverCameBefore) {
  // Large and small units, a symmetric material, kings-only ones (swept
  // or a team's), and the passes changing from one build to the next.
  struct Step {
    const char* material;
    MetricSet metrics;
    int threads;
    bool tight;  // the plan's minimum: no graph
  };
  const MetricSet all{true, true, false}, wdl{false, false, false}, dtc{true, true, true};
  const Step steps[] = {
      {"2K1Mv1K", dtc, 2, false}, {"1K1Mv1K", all, 2, false}, {"1K1Mv1K1M", dtc, 1, false},
      {"3Kv1K", dtc, 2, false},   {"2Kv1K1M", wdl, 2, false}, {"1K2Mv1K", dtc, 2, true},
      {"1Mv1M", all, 2, false},   {"2K1Mv1K", wdl, 1, false}, {"2Kv2K", all, 2, false},
      {"1K1Mv2K", dtc, 2, true},  {"2Mv1K1M", dtc, 2, false},
  };
  for (Variant v : {Variant::Russian, Variant::English}) {
    const Rules& r = rules_of(v);
    Solver solver(r);
    KeptScratch kept;
    for (const Step& st : steps) {
      const Material m = *Material::parse(st.material);
      if (!m.is_canonical()) continue;
      const MemorySuccessors succ = test::solved_successors(solver, m);
      BuildOptions fresh;
      fresh.mark_derived = true;
      fresh.metrics = st.metrics;
      fresh.threads = st.threads;
      fresh.large_unit = 0;  // the pipeline too, on these small units
      if (st.tight) fresh.memory_budget = plan_memory(m, st.metrics, st.threads, 0, 0).minimum;
      BuildOptions reused = fresh;
      reused.scratch = &kept;
      const std::string what = std::string(r.name) + " " + st.material;
      expect_same(build(r, m, succ, fresh), build(r, m, succ, reused), what);
    }
    EXPECT_GT(kept.bytes(), 0u) << r.name;
    kept.release();
    EXPECT_EQ(kept.bytes(), 0u) << r.name;
  }
}

TEST(KeptScratch, HoldsNoMoreThanTheNextBuildPlans) {
  const Rules& r = rules_of(Variant::Russian);
  Solver solver(r);
  KeptScratch kept;
  const MetricSet all{true, true, true};
  BuildOptions opt;
  opt.metrics = all;
  opt.threads = 1;  // before_unit below reads the one thread's scratch
  opt.scratch = &kept;
  const Material large = *Material::parse("2K1Mv1K"), small = *Material::parse("1K1Mv1K");
  build(r, large, test::solved_successors(solver, large), opt);
  // One thread, a large budget: every level solved with the move graph,
  // so the plan's scratch is that of the largest unit.
  const MemoryPlan plan = plan_memory(small, all, 1, 0, opt.memory_budget);
  ASSERT_EQ(plan.levels_partly_graphed, 0u);
  ASSERT_EQ(plan.levels_by_mode[static_cast<std::size_t>(LevelMode::Units)], 0u);
  EXPECT_GT(kept.bytes(), plan.units) << "the large material's scratch is larger than the small one's plan";
  std::uint64_t at_start = ~std::uint64_t{0};
  opt.before_unit = [&] {
    if (at_start == ~std::uint64_t{0}) at_start = kept.bytes();
  };
  const MemorySuccessors succ = test::solved_successors(solver, small);
  const test::Built got = build(r, small, succ, opt);
  EXPECT_LE(at_start, plan.units);
  BuildOptions fresh = opt;
  fresh.scratch = nullptr;
  fresh.before_unit = {};
  expect_same(got, build(r, small, succ, fresh), "1K1Mv1K");
}

}  // namespace
}  // namespace damka
