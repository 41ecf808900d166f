// Where a position's value lives: which table (a canonical material) and
// which slot of it.
//
// A table for a canonical, non-symmetric material of index size N holds
// 2N slots: slot i (i < N) is the position unrank(i) with White to move, slot
// N + i the same placement with Black to move.  A symmetric material holds N
// slots, White to move only: a Black-to-move position is looked up as its
// flipped() image, which has the same material, White to move and the same
// value for the side to move.  Positions of a non-canonical material are
// flipped into the canonical one.
#pragma once

#include <cstdint>

#include "damka/index.hpp"
#include "damka/king_walk.hpp"
#include "damka/material.hpp"
#include "damka/position.hpp"

namespace damka {

struct TableSlot {
  Material material;  // canonical
  std::uint64_t slot = 0;
  friend bool operator==(const TableSlot&, const TableSlot&) = default;
};

// N or 2N (see above); `canonical` must be canonical.
std::uint64_t table_slots(Material canonical);
std::uint64_t table_slots(const MaterialIndex& canonical_index);

// The table and slot of a valid position with at least one piece.
TableSlot locate(const Position& p);
// The same with the canonical material's index already built (for loops):
// p's material must be index.material() or its flipped().
std::uint64_t locate_slot(const MaterialIndex& canonical_index, const Position& p);

// Inverse of locate: the position stored at `slot` of the table of the
// canonical material (slot < table_slots(canonical)).
Position position_at(Material canonical, std::uint64_t slot);
Position position_at(const MaterialIndex& canonical_index, std::uint64_t slot);

// position_at for slots read in increasing order (a table walked block by
// block): where a slot follows the last one asked for inside the same men
// placement, its kings are the next placement of a king walk
// (king_walk.hpp: a few bit operations) instead of an unrank (a division
// and a colex unrank per piece set, about a tenth of a verify's time).
// Any other slot is unranked.  The result is position_at(index, slot) in
// every case (tested).  Not thread-safe: one cursor per thread; `index`
// must outlive it.
class SlotCursor {
 public:
  explicit SlotCursor(const MaterialIndex& canonical_index)
      : index_(&canonical_index), kings_(canonical_index.kings_per_slice()), walk_(0, 0, 0) {}
  const Position& at(std::uint64_t slot) {
    if (slot == next_ && rank_ + 1 < kings_) {
      walk_.next();
      p_.kings[0] = walk_.white();
      p_.kings[1] = walk_.black();
      ++rank_;
    } else {
      p_ = position_at(*index_, slot);
      const std::uint64_t n = index_->size();
      rank_ = (slot < n ? slot : slot - n) % kings_;
      walk_ = KingWalk(p_.men[0] | p_.men[1], p_.kings[0], p_.kings[1]);
    }
    next_ = slot + 1;
    return p_;
  }

 private:
  const MaterialIndex* index_;
  std::uint64_t kings_;             // placements per men placement
  std::uint64_t next_ = ~std::uint64_t{0};  // the slot a step reaches
  std::uint64_t rank_ = 0;          // the kings' rank in the men placement of p_
  KingWalk walk_;
  Position p_;
};

}  // namespace damka
