// ResidentTables (generator/src/resident_tables.hpp): which present tables a
// build loads into memory before a material (to_load): the material's
// successors whose files are present (an earlier run's, or built earlier in
// this run and converted into by captures) and not held, smallest first
// within the room given, none larger than the positions still to build that
// read it.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "damka/engine.hpp"
#include "damka/material.hpp"
#include "damka/slots.hpp"
#include "generate_detail.hpp"
#include "resident_tables.hpp"

namespace damka {
namespace {

std::size_t index_of(const std::vector<Material>& order, const Material& m) {
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), m) - order.begin());
}

TEST(ResidentTables, LoadsPresentSuccessorsSmallestFirstWithinTheRoom) {
  const std::vector<Material> order = build_order(4);
  std::vector<bool> build(order.size());
  for (std::size_t j = 0; j < order.size(); ++j) build[j] = order[j].pieces() == 4;  // 2 and 3 pieces present
  ResidentTables rt(order, build);
  const std::size_t i = index_of(order, *Material::parse("2K1Mv1K"));
  ASSERT_LT(i, order.size());
  const std::vector<std::size_t> all = rt.to_load(i, ~std::uint64_t{0});
  // Every present successor (not the 4-piece one it promotes into, built
  // by this run): a 4-piece material's successors are far smaller than
  // what reads them.
  std::vector<Material> want;
  for (const Material& s : successors(order[i]))
    if (!build[index_of(order, s)]) want.push_back(s);
  ASSERT_EQ(all.size(), want.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    EXPECT_FALSE(build[all[k]]);
    EXPECT_NE(std::find(want.begin(), want.end(), order[all[k]]), want.end()) << order[all[k]].name();
    if (k > 0) {
      EXPECT_LE(rt.bytes_of(all[k - 1]), rt.bytes_of(all[k]));
    }
  }
  // Room for the smallest alone.
  const std::vector<std::size_t> one = rt.to_load(i, rt.bytes_of(all[0]));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], all[0]);
  EXPECT_TRUE(rt.to_load(i, rt.bytes_of(all[0]) - 1).empty());
  // A table held is not loaded again.
  rt.add(all[0], nullptr);
  EXPECT_TRUE(rt.holds(order[all[0]]));
  const std::vector<std::size_t> rest = rt.to_load(i, ~std::uint64_t{0});
  EXPECT_EQ(rest.size(), all.size() - 1);
  EXPECT_EQ(std::count(rest.begin(), rest.end(), all[0]), 0);
}

// A table this run built before and does not hold (make_room dropped it,
// or it was not kept) has its files there: it is loaded like an earlier
// run's where the material converts into it by captures (fewer pieces),
// not where it promotes into it (as many pieces).
TEST(ResidentTables, TablesThisRunBuiltEarlierAreLoadedAgainForCaptures) {
  const std::vector<Material> order = build_order(4);
  const std::vector<bool> build(order.size(), true);  // from an empty folder
  const std::size_t i = index_of(order, *Material::parse("2K1Mv1K"));
  const std::size_t promoted = index_of(order, *Material::parse("3Kv1K"));  // 2K1Mv1K's promotion
  const std::size_t captured = index_of(order, *Material::parse("1K1Mv1K"));  // a capture of a king
  ASSERT_LT(i, order.size());
  ASSERT_LT(promoted, i);  // built first
  ASSERT_LT(captured, i);
  ResidentTables rt(order, build);
  const std::vector<std::size_t> loads = rt.to_load(i, ~std::uint64_t{0});
  std::vector<std::size_t> want;
  for (const Material& s : successors(order[i]))
    if (s.pieces() < order[i].pieces()) want.push_back(index_of(order, s));
  std::sort(want.begin(), want.end());
  std::vector<std::size_t> got = loads;
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(std::count(loads.begin(), loads.end(), captured), 1);
  EXPECT_EQ(std::count(loads.begin(), loads.end(), promoted), 0);
  // Held (kept when it was built): not loaded again.
  rt.add(captured, nullptr);
  const std::vector<std::size_t> rest = rt.to_load(i, ~std::uint64_t{0});
  EXPECT_EQ(std::count(rest.begin(), rest.end(), captured), 0);
  EXPECT_EQ(rest.size(), loads.size() - 1);
  // Dropped (make_room with no room drops every table): offered again.
  rt.make_room(i, 1, 0);
  EXPECT_FALSE(rt.holds(order[captured]));
  const std::vector<std::size_t> again = rt.to_load(i, ~std::uint64_t{0});
  EXPECT_EQ(std::count(again.begin(), again.end(), captured), 1);
  // What makes an offered table's files be there: every material comes
  // after its successors in the build order.
  for (std::size_t j = 0; j < order.size(); ++j)
    for (const Material& s : successors(order[j]))
      EXPECT_LT(index_of(order, s), j) << order[j].name() << " is built before its successor " << s.name();
}

// A table make_room drops while a material still to build reads it is
// saved (saved_codes.hpp) when saving is on: its codes handed over once,
// its bytes counted as saved while a material still reads it, and offered
// again as before (a capture successor, not a promotion successor this run
// built: the same plans, only a faster load).  A table nothing reads any
// more is not saved; with saving off, nothing is.
TEST(ResidentTables, TablesDroppedWhileStillReadAreSavedAndOfferedAgain) {
  const std::vector<Material> order = build_order(4);
  const std::vector<bool> build(order.size(), true);
  const std::size_t i = index_of(order, *Material::parse("2K1Mv1K"));
  const std::size_t promoted = index_of(order, *Material::parse("3Kv1K"));
  const std::size_t captured = index_of(order, *Material::parse("1K1Mv1K"));
  ASSERT_LT(i, order.size());
  std::size_t unread = order.size();  // built before i, read by no material from i on
  for (std::size_t j = 0; j < i && unread == order.size(); ++j)
    if (!ResidentTables(order, build).needed_from(i, order[j])) unread = j;
  ASSERT_LT(unread, order.size());
  auto codes_of = [&](std::size_t j) {
    return std::make_shared<BigVector<std::uint16_t>>(table_slots(order[j]), std::uint16_t{7});
  };
  for (const bool saving : {false, true}) {
    SCOPED_TRACE(saving ? "saving" : "not saving");
    ResidentTables rt(order, build);
    rt.save_dropped(saving);
    for (std::size_t j : {promoted, captured, unread}) rt.add(j, codes_of(j));
    rt.make_room(i, 1, 0);  // no room: every table dropped
    EXPECT_EQ(rt.bytes(), 0u);
    EXPECT_EQ(rt.saved(order[promoted]), saving);
    EXPECT_EQ(rt.saved(order[captured]), saving);
    EXPECT_FALSE(rt.saved(order[unread]));
    const auto dropped = rt.take_dropped();
    ASSERT_EQ(dropped.size(), saving ? 2u : 0u);
    for (const auto& [m, codes] : dropped) {
      ASSERT_NE(codes, nullptr) << m.name();
      EXPECT_EQ(codes->size(), table_slots(m));
      EXPECT_TRUE(m == order[promoted] || m == order[captured]) << m.name();
    }
    EXPECT_TRUE(rt.take_dropped().empty());  // handed over once
    EXPECT_EQ(rt.saved_bytes(i), saving ? rt.bytes_of(promoted) + rt.bytes_of(captured) : 0u);
    EXPECT_EQ(rt.saved_bytes(order.size()), 0u);  // nothing reads them after the last material
    const std::vector<std::size_t> loads = rt.to_load(i, ~std::uint64_t{0});
    EXPECT_EQ(std::count(loads.begin(), loads.end(), captured), 1);
    EXPECT_EQ(std::count(loads.begin(), loads.end(), promoted), 0);
    rt.unsave(order[promoted]);
    EXPECT_FALSE(rt.saved(order[promoted]));
    EXPECT_EQ(rt.saved_bytes(i), saving ? rt.bytes_of(captured) : 0u);
  }
}

TEST(ResidentTables, APresentTableLargerThanItsReadersIsNotLoaded) {
  // A material whose present successor is larger than it, and the only
  // material to build: loading would cost more than reading the file.
  const std::vector<Material> order = build_order(4);
  for (std::size_t i = 0; i < order.size(); ++i)
    for (const Material& s : successors(order[i])) {
      if (table_slots(s) <= table_slots(order[i])) continue;
      std::vector<bool> build(order.size(), false);
      build[i] = true;
      ResidentTables rt(order, build);
      const std::vector<std::size_t> loads = rt.to_load(i, ~std::uint64_t{0});
      EXPECT_EQ(std::count(loads.begin(), loads.end(), index_of(order, s)), 0)
          << order[i].name() << " would load " << s.name();
      // Once enough positions still to build read it, it is.
      std::vector<bool> more(order.size(), false);
      std::uint64_t readers = 0;
      for (std::size_t j = i; j < order.size(); ++j) {
        const std::vector<Material> sj = successors(order[j]);
        if (std::find(sj.begin(), sj.end(), s) == sj.end()) continue;
        more[j] = true;
        readers += table_slots(order[j]);
      }
      ASSERT_GE(readers, table_slots(s)) << s.name();  // true of the first such pair up to 4 pieces
      ResidentTables rt2(order, more);
      const std::vector<std::size_t> l2 = rt2.to_load(i, ~std::uint64_t{0});
      EXPECT_EQ(std::count(l2.begin(), l2.end(), index_of(order, s)), 1) << order[i].name() << " " << s.name();
      return;
    }
  FAIL() << "no material up to 4 pieces converts into a larger one";
}

TEST(ResidentTables, CaptureBytesCountTheSuccessorsWithFewerPieces) {
  const std::vector<Material> order = build_order(4);
  ResidentTables rt(order, std::vector<bool>(order.size(), true));
  const std::size_t i = index_of(order, *Material::parse("2K1Mv1K"));
  ASSERT_LT(i, order.size());
  std::uint64_t want = 0;
  std::size_t first_capture = order.size();
  for (const Material& s : successors(order[i]))
    if (s.pieces() < order[i].pieces()) {
      want += rt.bytes_of(index_of(order, s));
      first_capture = std::min(first_capture, index_of(order, s));
    }
  ASSERT_GT(want, 0u);
  EXPECT_EQ(rt.capture_bytes(i), want);
  EXPECT_EQ(rt.capture_bytes(i, true), want);
  // A capture successor held: no longer missing; a promotion (3Kv1K, as
  // many pieces) never counts.
  rt.add(first_capture, nullptr);
  rt.add(index_of(order, *Material::parse("3Kv1K")), nullptr);
  EXPECT_EQ(rt.capture_bytes(i), want);
  EXPECT_EQ(rt.capture_bytes(i, true), want - rt.bytes_of(first_capture));
}

// resident_step puts a material's store on disk where, held in memory, it
// would leave no room for the tables the material captures into: then
// they are loaded; with room for both, the store stays in memory.
TEST(ResidentTables, AStoreThatCrowdsOutTheCaptureTablesGoesToDisk) {
  const std::vector<Material> order = build_order(5);
  std::vector<bool> build(order.size(), false);
  const std::size_t i = index_of(order, *Material::parse("2K1Mv1K1M"));
  ASSERT_LT(i, order.size());
  build[i] = true;  // the rest present: its capture successors can be loaded
  const Material& m = order[i];
  const MetricSet all{.dtw = true, .dtc = true};
  const int threads = 2;
  ResidentTables probe(order, build);
  const std::uint64_t captures = probe.capture_bytes(i);
  ASSERT_GT(captures, 0u);
  const MemoryPlan roomy = plan_memory(m, all, threads, generate_detail::kCachePerThread, std::uint64_t{1} << 40);
  ASSERT_FALSE(roomy.spill);
  // A budget whose share (7/8) holds the plan and the tables: in memory.
  {
    ResidentTables rt(order, build);
    const std::uint64_t budget = (roomy.peak + captures) / 7 * 8 + (std::uint64_t{64} << 20);
    const generate_detail::ResidentStep step = generate_detail::resident_step(rt, i, m, all, threads, budget);
    EXPECT_FALSE(step.store_on_disk);
  }
  // Room for the store or the tables, not both: the store to disk (though
  // it would fit), the tables loaded.
  bool seen = false;
  for (std::uint64_t budget = roomy.peak; budget < 2 * roomy.peak && !seen; budget += std::uint64_t{1} << 20) {
    const MemoryPlan in_memory = plan_memory(m, all, threads, generate_detail::kCachePerThread, budget);
    if (in_memory.spill || in_memory.peak + captures <= budget / 8 * 7) continue;
    const MemoryPlan on_disk = plan_memory(m, all, threads, generate_detail::kCachePerThread, budget,
                                           KingsOnly::Auto, true);
    ASSERT_TRUE(on_disk.spill);
    EXPECT_EQ(on_disk.store, 0u);
    EXPECT_EQ(on_disk.spill_disk, in_memory.store);
    if (on_disk.peak + captures > budget / 8 * 7) continue;  // no room for the tables either way
    ResidentTables rt(order, build);
    const generate_detail::ResidentStep step = generate_detail::resident_step(rt, i, m, all, threads, budget);
    EXPECT_TRUE(step.store_on_disk) << budget;
    for (const Material& s : successors(m)) {  // every capture successor is present and fits
      if (s.pieces() < m.pieces()) {
        EXPECT_EQ(std::count(step.load.begin(), step.load.end(), index_of(order, s)), 1) << s.name() << " " << budget;
      }
    }
    EXPECT_FALSE(step.keep);  // not built again by this run: nothing reads it
    seen = true;
  }
  EXPECT_TRUE(seen) << "no budget between the plan's peak and twice it has room for the tables only without the store";
}


// make_room drops the tables the material to build does not read before
// those it reads, even when one it reads is larger (the largest went first
// before: a 7-piece material then read its largest capture tables through
// their files); `want` frees room from the tables it does not read alone,
// for the ones it captures into to be loaded (to_load).
TEST(ResidentTables, MakeRoomDropsTablesTheMaterialDoesNotReadFirst) {
  const std::vector<Material> order = build_order(5);
  const std::vector<bool> build(order.size(), true);
  const ResidentTables probe(order, build);
  // A material, its largest successor built before it, and a smaller table
  // built before it that only later materials read.
  std::size_t i = 0, read = 0, other = 0;
  bool found = false;
  for (std::size_t k = 0; k < order.size() && !found; ++k) {
    const std::vector<Material> succ = successors(order[k]);
    std::size_t r = order.size();
    for (const Material& s : succ)
      if (const std::size_t j = index_of(order, s); j < k && (r == order.size() || probe.bytes_of(j) > probe.bytes_of(r)))
        r = j;
    if (r == order.size()) continue;
    for (std::size_t j = 0; j < k && !found; ++j)
      if (std::find(succ.begin(), succ.end(), order[j]) == succ.end() && probe.needed_from(k, order[j]) &&
          probe.bytes_of(j) < probe.bytes_of(r)) {
        i = k, read = r, other = j;
        found = true;
      }
  }
  ASSERT_TRUE(found);
  SCOPED_TRACE(order[i].name() + " reads " + order[read].name() + ", not " + order[other].name());
  {
    ResidentTables rt(order, build);
    rt.add(read, nullptr);
    rt.add(other, nullptr);
    rt.make_room(i, 1, rt.bytes_of(read) + 1);  // room for one: the one it reads stays, though larger
    EXPECT_TRUE(rt.holds(order[read]));
    EXPECT_FALSE(rt.holds(order[other]));
    rt.make_room(i, 1, 0);  // no room: it goes too
    EXPECT_FALSE(rt.holds(order[read]));
  }
  {
    ResidentTables rt(order, build);
    rt.add(other, nullptr);
    const std::uint64_t budget = rt.bytes_of(other) + 1;
    rt.make_room(i, 1, budget);  // it fits: kept
    EXPECT_TRUE(rt.holds(order[other]));
    rt.make_room(i, 1, budget, rt.bytes_of(read));  // room wanted to load the table i reads: dropped
    EXPECT_FALSE(rt.holds(order[other]));
  }
}

}  // namespace
}  // namespace damka
