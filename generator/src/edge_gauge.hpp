// Private to the generator: how many edges the move graphs of a material's
// units have had (engine.cpp, where the plan's estimate leaves a graph to
// only some threads).
#pragma once

#include <atomic>
#include <cstdint>

namespace damka::engine_detail {

// The most edges per position any unit solved with a move graph has had,
// as the edges per position to plan for from then on: a quarter above it,
// rounded up, plus one (units of later levels differ a little: their men
// stand elsewhere).  0 until a unit with a graph and an edge is added.
// add() and edges() are thread-safe.
class EdgeGauge {
 public:
  void add(std::uint64_t edges, std::uint64_t positions) {
    if (positions == 0) return;
    const std::uint64_t per = (edges * kScale + positions - 1) / positions;
    std::uint64_t seen = most_.load(std::memory_order_relaxed);
    while (per > seen && !most_.compare_exchange_weak(seen, per, std::memory_order_relaxed)) {
    }
  }
  std::uint64_t edges() const {
    const std::uint64_t seen = most_.load(std::memory_order_relaxed);
    return seen == 0 ? 0 : (seen * 5 / 4 + kScale - 1) / kScale + 1;
  }

 private:
  static constexpr std::uint64_t kScale = 1024;
  std::atomic<std::uint64_t> most_{0};
};

}  // namespace damka::engine_detail
