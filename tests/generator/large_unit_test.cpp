// The passes' fetch-ahead pipeline for large units (BuildOptions::large_unit,
// engine_unit.cpp) changes only when memory is read, never what is computed:
// with every unit run through it, a build gives the same values, derived
// marks and counts as with none, in every variant, for every pass list the
// generator and the statutes run, with and without the move graph, alone
// and in a team.  The tables here are small, so the threshold is moved: the
// default one is above most of their units.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "damka/engine.hpp"
#include "damka/solver.hpp"
#include "generator/generate_helpers.hpp"

namespace damka {
namespace {

using test::build;
using test::expect_same;

TEST(LargeUnits, FetchingAheadChangesNoValue) {
  // The statutes' limited count (as in kings_only_sweep_test.cpp).
  const MetricSpec limited{"statute", kExitCapture | kExitPromotion, false, true, std::nullopt, 3};
  constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
  for (Variant v : all_variants()) {
    const Rules& r = rules_of(v);
    Solver solver(r);
    // Men and kings (units by one thread, or a team where a level has
    // few), and a kings-only material solved by a team.
    for (const char* name : {"2K1Mv1K", "1K1Mv2M", "3Kv1K"}) {
      const Material m = *Material::parse(name);
      const MemorySuccessors succ = test::solved_successors(solver, m);
      for (int kind = 1; kind < 4; ++kind) {
        for (int threads : {1, 2}) {
          for (bool tight : {false, true}) {
            BuildOptions none;
            none.mark_derived = true;
            none.threads = threads;
            none.kings_only = KingsOnly::Team;
            if (kind == 1) none.metrics = MetricSet{false, false};  // wdl only
            if (kind == 2) none.metrics = MetricSet{true, true, true};
            if (kind == 3) none.limited = limited;
            // The smallest budget the plan allows: no move graph (passes
            // over un-moves).
            if (tight) none.memory_budget = plan_memory(m, none.metrics, threads, 0, 0, none.kings_only).minimum;
            none.large_unit = kNever;
            BuildOptions every = none;
            every.large_unit = 0;
            const std::string what = std::string(r.name) + " " + name + " kind " + std::to_string(kind) + ", " +
                                     std::to_string(threads) + " threads" + (tight ? ", tight budget" : "");
            expect_same(build(r, m, succ, none), build(r, m, succ, every), what);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace damka
