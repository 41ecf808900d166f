// Move generator speed: perft from the start positions (leaves per second).
// Russian depth 11 (110,917,189 leaves) is the target (< 3 s on one core);
// it is registered as a separate, longer benchmark: --benchmark_filter=Depth11.
// And the endgame work of the generator and the value oracle (issue 26: the
// capture search is the largest share of a 7-piece build): has_capture on
// random positions of 2 kings + 2 men against 1 king + 2 men, and the
// captures of those that must capture.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

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

// Random valid positions with the given pieces (white men, white kings,
// black men, black kings), either side to move.
std::vector<damka::Position> endgame_positions(int wm, int wk, int bm, int bk, std::size_t n) {
  std::mt19937_64 rng(7);
  std::vector<damka::Position> out;
  while (out.size() < n) {
    damka::Position p;
    damka::Bitboard used = 0;
    auto place = [&](damka::Bitboard& into, int count, damka::Bitboard banned) {
      for (int i = 0; i < count;) {
        const int s = static_cast<int>(rng() % 32);
        const damka::Bitboard b = damka::Bitboard{1} << s;
        if ((used | banned) & b) continue;
        used |= b;
        into |= b;
        ++i;
      }
    };
    place(p.men[0], wm, damka::promotion_row(damka::Color::White));
    place(p.men[1], bm, damka::promotion_row(damka::Color::Black));
    place(p.kings[0], wk, 0);
    place(p.kings[1], bk, 0);
    p.side_to_move = rng() & 1 ? damka::Color::Black : damka::Color::White;
    out.push_back(p);
  }
  return out;
}

void has_capture_bench(benchmark::State& state, damka::Variant v) {
  const damka::Rules& r = damka::rules_of(v);
  const auto pos = endgame_positions(2, 2, 2, 1, 4096);
  std::size_t i = 0, yes = 0;
  for (auto _ : state) {
    yes += damka::has_capture(r, pos[i++ & 4095]);
  }
  benchmark::DoNotOptimize(yes);
  state.SetItemsProcessed(state.iterations());
}

void captures_bench(benchmark::State& state, damka::Variant v) {
  const damka::Rules& r = damka::rules_of(v);
  std::vector<damka::Position> pos;
  for (const damka::Position& p : endgame_positions(2, 2, 2, 1, 40000))
    if (damka::has_capture(r, p) && pos.size() < 4096) pos.push_back(p);
  damka::MoveList moves;
  std::size_t i = 0, n = 0;
  for (auto _ : state) {
    damka::generate_capture_moves(r, pos[i++ % pos.size()], moves);
    n += moves.size();
  }
  benchmark::DoNotOptimize(n);
  state.counters["moves"] = static_cast<double>(n) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK_CAPTURE(has_capture_bench, Russian, damka::Variant::Russian);
BENCHMARK_CAPTURE(has_capture_bench, English, damka::Variant::English);
BENCHMARK_CAPTURE(captures_bench, Russian, damka::Variant::Russian);
BENCHMARK_CAPTURE(captures_bench, Brazilian, damka::Variant::Brazilian);
BENCHMARK_CAPTURE(captures_bench, English, damka::Variant::English);

}  // namespace
