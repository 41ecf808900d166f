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

}  // namespace damka
