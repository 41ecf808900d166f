// A capture position's value is its best capture's: the engine reads its
// captures' successors until every pass has a win in 1 ply (no exit is
// worth less), as the oracle's search stops at a winning capture.  In a
// WDL-only build every winning capture is such a win, so it reads fewer
// successors than the captures it has, and its values stay those of the
// full build (and so the brute force's, solver_vs_brute_test.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "damka/engine.hpp"
#include "damka/movegen.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "generator/generate_helpers.hpp"

namespace damka {
namespace {

// Counts the successors its readers are asked for.
class CountingSource : public SuccessorSource {
 public:
  explicit CountingSource(const SuccessorSource& inner) : inner_(inner) {}
  std::unique_ptr<SuccessorReader> reader() const override {
    return std::make_unique<Reader>(inner_.reader(), reads_);
  }
  std::uint64_t reads() const { return reads_.load(); }

 private:
  class Reader : public SuccessorReader {
   public:
    Reader(std::unique_ptr<SuccessorReader> inner, std::atomic<std::uint64_t>& reads)
        : inner_(std::move(inner)), reads_(reads) {}
    std::uint16_t code(const Position& q) override {
      reads_.fetch_add(1, std::memory_order_relaxed);
      return inner_->code(q);
    }

   private:
    std::unique_ptr<SuccessorReader> inner_;
    std::atomic<std::uint64_t>& reads_;
  };
  const SuccessorSource& inner_;
  mutable std::atomic<std::uint64_t> reads_{0};
};

TEST(CaptureExits, AWinningCaptureEndsTheReadsOfAWdlBuild) {
  for (Variant v : all_variants()) {
    const Rules& r = rules_of(v);
    Solver solver(r);
    std::uint64_t reads_wdl = 0, reads_full = 0;
    // With men (the unit solver) and kings only (the sweep).
    for (const char* name : {"2K1Mv1K", "1K1Mv1K1M", "2Kv2K"}) {
      SCOPED_TRACE(std::string(r.name) + " " + name);
      const Material m = *Material::parse(name);
      const MemorySuccessors succ = test::solved_successors(solver, m);
      // The exits of every capture position: one per capture.
      std::uint64_t capture_exits = 0;
      MoveList moves;
      const MaterialIndex index(m);
      SlotCursor slots(index);
      for (std::uint64_t s = 0; s < table_slots(index); ++s)
        if (generate_capture_moves_if_any(r, slots.at(s), moves)) capture_exits += moves.size();
      ASSERT_GT(capture_exits, 0u);

      BuildOptions full, wdl;
      full.mark_derived = wdl.mark_derived = true;
      wdl.metrics = MetricSet{false, false};
      const CountingSource count_full(succ), count_wdl(succ);
      const test::Built a = test::build(r, m, count_full, full);
      const test::Built b = test::build(r, m, count_wdl, wdl);
      // The same WDL in every slot (derived ones are don't care in both).
      ASSERT_EQ(a.codes.size(), 2u);
      ASSERT_EQ(b.codes.size(), 1u);
      ASSERT_EQ(a.codes[0].size(), b.codes[0].size());
      std::uint64_t differ = 0;
      for (std::size_t k = 0; k < a.codes[0].size(); ++k) {
        const std::uint16_t x = a.codes[0][k], y = b.codes[0][k];
        if (x == kDontCareCode || y == kDontCareCode ? x != y
                                                     : Value::decode(x).wdl_only() != Value::decode(y))
          ++differ;
      }
      EXPECT_EQ(differ, 0u);
      // Never more reads; fewer where a winning capture is not a win in 1
      // of the full build (English 2K1Mv1K has none: a capture by the
      // stronger side takes the last piece, and the lone king's captures
      // never win).  A kings-only material's exits are its captures.
      EXPECT_LE(count_wdl.reads(), count_full.reads());
      EXPECT_GT(count_wdl.reads(), 0u);
      if (m.wm == 0 && m.bm == 0) {
        EXPECT_LE(count_wdl.reads(), capture_exits);
      }
      reads_wdl += count_wdl.reads();
      reads_full += count_full.reads();
    }
    EXPECT_LT(reads_wdl, reads_full) << r.name;
  }
}

}  // namespace
}  // namespace damka
