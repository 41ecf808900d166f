// Move generator speed: perft from the start positions (leaves per second).
// Russian depth 11 (110,917,189 leaves) is the target (< 3 s on one core);
// it is registered as a separate, longer benchmark: --benchmark_filter=Depth11.
#include <benchmark/benchmark.h>

#include "damka/movegen.hpp"

namespace {

void perft_bench(benchmark::State& state, damka::Variant v, damka::MoveMode mode) {
  const damka::Rules& r = damka::rules_of(v);
  const damka::Position p = damka::start_position(r);
  const int depth = static_cast<int>(state.range(0));
  std::uint64_t leaves = 0;
  for (auto _ : state) {
    leaves = damka::perft(r, p, depth, mode);
    benchmark::DoNotOptimize(leaves);
  }
  state.counters["leaves"] = static_cast<double>(leaves);
  state.counters["leaves/s"] =
      benchmark::Counter(static_cast<double>(leaves) * state.iterations(), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(perft_bench, Russian, damka::Variant::Russian, damka::MoveMode::Merged)->Arg(8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(perft_bench, RussianPaths, damka::Variant::Russian, damka::MoveMode::AllPaths)->Arg(8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(perft_bench, Brazilian, damka::Variant::Brazilian, damka::MoveMode::Merged)->Arg(8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(perft_bench, English, damka::Variant::English, damka::MoveMode::Merged)->Arg(8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(perft_bench, Thai, damka::Variant::Thai, damka::MoveMode::Merged)->Arg(8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(perft_bench, RussianDepth11, damka::Variant::Russian, damka::MoveMode::Merged)
    ->Arg(11)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
