// Table slots: locate / position_at / table_slots.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "damka/slots.hpp"

namespace damka {
namespace {

// Every slot of every canonical table up to 4 pieces, and every position
// (both sides to move) of every material up to 4 pieces.
TEST(Slots, ExhaustiveUpTo4Pieces) {
  for (int n = 1; n <= 4; ++n)
    for (const Material& m : materials_with(n, false)) {
      const MaterialIndex idx(m);
      if (m.is_canonical()) {
        const std::uint64_t slots = table_slots(m);
        ASSERT_EQ(slots, m.is_symmetric() ? idx.size() : 2 * idx.size());
        for (std::uint64_t s = 0; s < slots; ++s) {
          const Position p = position_at(idx, s);
          ASSERT_EQ(locate_slot(idx, p), s);
          // The colour-reversed position is the same table entry.
          ASSERT_EQ(locate_slot(idx, p.flipped()), s);
        }
        ASSERT_EQ(position_at(m, slots - 1), position_at(idx, slots - 1));
      }
      const MaterialIndex canon(m.canonical());
      for (std::uint64_t i = 0; i < idx.size(); ++i) {
        for (Color c : {Color::White, Color::Black}) {
          Position p = idx.unrank(i);
          p.side_to_move = c;
          const TableSlot t = locate(p);
          ASSERT_EQ(t.material, m.canonical());
          ASSERT_EQ(t.slot, locate_slot(canon, p));
          const Position q = position_at(t.material, t.slot);
          ASSERT_TRUE(q == p || q == p.flipped());
        }
      }
    }
}

// Canonical tables store each position exactly once up to colour reversal:
// their slots add up to the number of placements (2 sides to move / 2).
TEST(Slots, StoredSlotsEqualPlacements) {
  const std::uint64_t expected[] = {120, 6972, 261224, 7092774, 148688232, 2503611964, 34779531480, 406309208481};
  for (int n = 1; n <= 8; ++n) {
    std::uint64_t total = 0;
    for (const Material& m : materials_with(n, false))
      if (m.is_canonical()) total += table_slots(m);
    EXPECT_EQ(total, expected[n - 1]) << n;
  }
}

RC_GTEST_PROP(Slots, LocateRoundTrip5To8Pieces, ()) {
  const auto all = materials_with(*rc::gen::inRange(5, 9), false);
  const Material m = all[*rc::gen::inRange<std::size_t>(0, all.size())];
  const MaterialIndex idx(m);
  Position p = idx.unrank(*rc::gen::inRange<std::uint64_t>(0, idx.size()));
  p.side_to_move = *rc::gen::element(Color::White, Color::Black);
  const TableSlot t = locate(p);
  RC_ASSERT(t.material == m.canonical());
  RC_ASSERT(t.slot < table_slots(t.material));
  const Position q = position_at(t.material, t.slot);
  RC_ASSERT(q == p || q == p.flipped());
  RC_ASSERT(locate(p.flipped()) == t);
}

// SlotCursor gives position_at's position for every slot: walked in order
// (king walk steps across each men placement, an unrank where one starts
// and where Black to move does), and with gaps (an unrank).
TEST(SlotCursor, EverySlotInOrderUpTo4Pieces) {
  for (int n = 1; n <= 4; ++n)
    for (const Material& m : materials_with(n, true)) {
      if (!m.is_canonical()) continue;
      const MaterialIndex idx(m);
      SlotCursor cursor(idx);
      for (std::uint64_t s = 0; s < table_slots(idx); ++s)
        ASSERT_EQ(cursor.at(s), position_at(idx, s)) << m.name() << " slot " << s;
      SlotCursor again(idx);  // every third slot, then back to the start
      for (std::uint64_t s = 0; s < table_slots(idx); s += 3) ASSERT_EQ(again.at(s), position_at(idx, s));
      ASSERT_EQ(again.at(0), position_at(idx, 0));
      ASSERT_EQ(again.at(1), position_at(idx, 1));
    }
}

RC_GTEST_PROP(SlotCursor, RunsAndJumps5To7Pieces, ()) {
  const auto all = materials_with(*rc::gen::inRange(5, 8), true);
  const Material m = all[*rc::gen::inRange<std::size_t>(0, all.size())].canonical();
  const MaterialIndex idx(m);
  const std::uint64_t slots = table_slots(idx);
  SlotCursor cursor(idx);
  std::uint64_t s = *rc::gen::inRange<std::uint64_t>(0, slots);
  for (int run = 0; run < 8; ++run) {
    const int len = *rc::gen::inRange(1, 2000);
    for (int i = 0; i < len && s < slots; ++i, ++s) RC_ASSERT(cursor.at(s) == position_at(idx, s));
    s = *rc::gen::inRange<std::uint64_t>(0, slots);  // anywhere, backwards too
  }
}

}  // namespace
}  // namespace damka
