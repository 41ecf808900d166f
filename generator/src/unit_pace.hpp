// Private to the generator: when a thread without a move graph takes a
// unit (engine.cpp, levels solved by units where only some threads keep a
// graph).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace damka::engine_detail {

// How long a unit takes a thread with a move graph and one without, in the
// level being solved once each kind has solved one there, over the
// material so far until then (units' costs drift from level to level:
// Russian 5K1Mv1K at --memory 6G, a unit took the thread without a graph
// 1.2 times as long in its first level, 1.6-2.2 times in its last five,
// timed beside another build).
// Where only some threads keep a graph, one without takes a unit only where
// that ends the level no later than leaving it to those with one: each of
// them has half a unit to end on average, then the units left, `graphs` at
// a time.  Russian, --metrics wdl, 2 threads, units' wall time taking every
// unit / always leaving a level's last unit / by this rule: 5K1Mv1K at
// --memory 6G 53.4 / 47.3 / 48.1 s; 3K1Mv3K at --memory 16G, the other
// tables present, 130.8 / 174.3 / 135.5 s (the last in another sitting).
// add() and take() are thread-safe; next_level() must not run beside them.
class UnitPace {
 public:
  void next_level() {
    for (int k = 0; k < 2; ++k) {
      material_[k].nanos += level_[k].nanos.exchange(0, std::memory_order_relaxed);
      material_[k].units += level_[k].units.exchange(0, std::memory_order_relaxed);
    }
  }
  void add(bool graph, double seconds, std::uint64_t units) {
    Sums& s = level_[static_cast<std::size_t>(graph)];
    s.nanos.fetch_add(static_cast<std::uint64_t>(seconds * 1e9), std::memory_order_relaxed);
    s.units.fetch_add(units, std::memory_order_relaxed);
  }
  // Whether a thread without a graph takes one of the `left` units not
  // handed out yet (true until both kinds have solved a unit).
  bool take(std::size_t left, int graphs) const {
    if (left == 0) return false;
    if (graphs <= 0) return true;
    double mean[2] = {0, 0};
    const bool level = level_[0].units.load(std::memory_order_relaxed) > 0 &&
                       level_[1].units.load(std::memory_order_relaxed) > 0;
    for (std::size_t k = 0; k < 2; ++k) {
      std::uint64_t nanos = level_[k].nanos.load(std::memory_order_relaxed);
      std::uint64_t units = level_[k].units.load(std::memory_order_relaxed);
      if (!level) {
        nanos += material_[k].nanos;
        units += material_[k].units;
      }
      if (units == 0) return true;
      mean[k] = static_cast<double>(nanos) / static_cast<double>(units);
    }
    const auto g = static_cast<std::size_t>(graphs);
    const auto rounds = static_cast<double>((left + g - 1) / g);
    return mean[0] < (rounds + 0.5) * mean[1];
  }

 private:
  struct Sums {
    std::atomic<std::uint64_t> nanos{0}, units{0};
  };
  struct Totals {
    std::uint64_t nanos = 0, units = 0;
  };
  Sums level_[2];      // by graph: this level's time and units solved
  Totals material_[2];  // the earlier levels'
};

}  // namespace damka::engine_detail
