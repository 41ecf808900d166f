// Retrograde solving speed: one material solved in memory (its successors
// solved once beforehand), reported as positions per second.  Full runs
// (all 5- or 6-piece tables) are measured with `damka generate`, whose
// summary prints time and positions per second per table and in total.
#include <benchmark/benchmark.h>

#include "damka/slots.hpp"
#include "damka/solver.hpp"

namespace {

void solve_bench(benchmark::State& state, damka::Variant v, damka::Material m) {
  const damka::Rules& r = damka::rules_of(v);
  const int threads = static_cast<int>(state.range(0));
  damka::Solver solver(r, threads);
  for (const damka::Material& s : damka::successors(m.canonical())) solver.solve(s);
  std::uint64_t positions = 0;
  for (auto _ : state) {
    const damka::SolveStats st = solver.solve_one(m.canonical());
    positions = st.positions;
    benchmark::DoNotOptimize(st.wins);
  }
  state.counters["positions"] = static_cast<double>(positions);
  state.counters["pos/s"] =
      benchmark::Counter(static_cast<double>(positions) * state.iterations(), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(solve_bench, Russian3Kv1K, damka::Variant::Russian, damka::Material{0, 3, 0, 1})
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(solve_bench, Russian2K1Mv1K, damka::Variant::Russian, damka::Material{1, 2, 0, 1})
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(solve_bench, Russian2Kv2K, damka::Variant::Russian, damka::Material{0, 2, 0, 2})
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(solve_bench, English2Kv2K, damka::Variant::English, damka::Material{0, 2, 0, 2})
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(solve_bench, Russian1K2Mv1K1M, damka::Variant::Russian, damka::Material{2, 1, 1, 1})
    ->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
