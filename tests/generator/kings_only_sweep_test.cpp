// Kings-only materials are solved in distance-ordered sweeps
// (UnitSolver::solve_sweep): the same values, derived marks and counts as the
// unit solver's team and serial paths (BuildOptions::kings_only), for every pass list the generator and the statutes run, in every
// variant and for any number of threads; and within 8 bytes per position.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "damka/engine.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "generator/generate_helpers.hpp"

namespace damka {
namespace {

using test::Built;
using test::build;
using test::expect_same;

TEST(KingsOnlySweep, SameValuesAsTheUnitSolverForAnyThreadsAndPasses) {
  // The statutes' limited count: restarts on captures and promotions, a win
  // must end within 3 moves (statutes/src/values.cpp builds such specs).
  const MetricSpec limited{"statute", kExitCapture | kExitPromotion, false, true, std::nullopt, 3};
  for (Variant v : all_variants()) {
    const Rules& r = rules_of(v);
    Solver solver(r);
    for (const char* name : {"2Kv1K", "3Kv1K", "2Kv2K"}) {
      const Material m = *Material::parse(name);
      const MemorySuccessors succ = test::solved_successors(solver, m);
      for (int kind = 1; kind < 4; ++kind) {  // dtw and dtc are in kind 2
        BuildOptions base;
        base.mark_derived = true;
        if (kind == 1) base.metrics = MetricSet{false, false};  // wdl only
        if (kind == 2) base.metrics = MetricSet{true, true, true};
        if (kind == 3) base.limited = limited;
        BuildOptions team = base, serial = base;
        team.kings_only = serial.kings_only = KingsOnly::Team;
        team.threads = 2;
        const Built want = build(r, m, succ, team);
        expect_same(want, build(r, m, succ, serial), std::string(r.name) + " " + name + " serial");
        for (int threads : {1, 2}) {
          BuildOptions sweep = base;
          sweep.kings_only = KingsOnly::Sweep;
          sweep.threads = threads;
          expect_same(want, build(r, m, succ, sweep),
                      std::string(r.name) + " " + name + " kind " + std::to_string(kind) + " sweep with " +
                          std::to_string(threads) + " threads");
        }
      }
    }
  }
}

constexpr std::uint64_t kFixed = std::uint64_t{48} << 20;  // engine.cpp kFixedBytes: process, buffers

// The target: a kings-only material's levels and working memory
// within 8 bytes per position (all three files' passes), where the team
// needed about 30; the successors' caches and the store come on top.
TEST(KingsOnlySweep, PlansAtMostEightBytesPerPosition) {
  for (const char* name : {"4Kv2K", "3Kv3K", "5Kv2K"}) {
    const Material m = *Material::parse(name);
    const std::uint64_t positions = table_slots(m);
    // The minimum: what a budget too small for the move graph gets.
    const MemoryPlan sweep = plan_memory(m, MetricSet{}, 2, 0, ~std::uint64_t{0}, KingsOnly::Auto);
    const MemoryPlan team = plan_memory(m, MetricSet{}, 2, 0, ~std::uint64_t{0}, KingsOnly::Team);
    EXPECT_LE(sweep.minimum - kFixed, 8 * positions) << name;
    EXPECT_GT(team.minimum - kFixed, 20 * positions) << name;
  }
}

}  // namespace
}  // namespace damka
