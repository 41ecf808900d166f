// Material signatures: how many men and kings each side has.
//
// Names (used in file names and messages): the white side, the letter 'v',
// then the black side.  A side is written kings first, then men, each as a
// count followed by K or M; a count of zero is left out, and a side with no
// pieces at all is written "0".  Examples:
//   "3Kv1K"    3 white kings against 1 black king
//   "1K1Mv2M"  1 white king and 1 white man against 2 black men
//   "2Kv0"     2 white kings, no black pieces
// Parsing is case-insensitive ("3kv1k") and also accepts men before kings
// ("1M1Kv2M"); printing always gives the form above.
//
// Colour reversal (rotate the board 180 degrees and swap colours) maps a
// material to its flipped() material with the same game value, so tables
// store only one of the two: the canonical one.  Rule: a material is
// canonical when White has more pieces than Black, or as many pieces and at
// least as many kings.  (Same pieces and same kings means same men: the
// material is then symmetric, flipped() == *this.)
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "damka/expected.hpp"
#include "damka/position.hpp"

namespace damka {

struct Material {
  int wm = 0, wk = 0, bm = 0, bk = 0;  // white men, white kings, black men, black kings

  constexpr int pieces() const { return wm + wk + bm + bk; }
  constexpr int white() const { return wm + wk; }
  constexpr int black() const { return bm + bk; }
  constexpr int men() const { return wm + bm; }
  constexpr int kings() const { return wk + bk; }
  // Colours swapped.
  constexpr Material flipped() const { return {bm, bk, wm, wk}; }
  constexpr bool is_symmetric() const { return flipped() == *this; }
  // See the rule at the top of this file.
  constexpr bool is_canonical() const {
    if (white() != black()) return white() > black();
    return wk >= bk;
  }
  constexpr Material canonical() const { return is_canonical() ? *this : flipped(); }
  // Counts are non-negative, men fit on the 28 squares open to them (white
  // men on squares 0..27, black men on 4..31) and all pieces fit on 32 squares.
  constexpr bool is_valid() const {
    return wm >= 0 && wk >= 0 && bm >= 0 && bk >= 0 && wm <= 28 && bm <= 28 && pieces() <= kNumSquares;
  }

  std::string name() const;
  // In words: "3 white kings vs 1 black king", "2 white kings vs no black pieces".
  std::string describe() const;
  static Expected<Material> parse(std::string_view text);

  friend constexpr bool operator==(const Material&, const Material&) = default;
  friend constexpr auto operator<=>(const Material&, const Material&) = default;
};

// The material of a position (side to move plays no part).
constexpr Material material_of(const Position& p) {
  return {popcount(p.men[0]), popcount(p.kings[0]), popcount(p.men[1]), popcount(p.kings[1])};
}

// Every valid material with exactly `pieces` pieces, canonical or not, in
// increasing operator<=> order.  With both_sides_present, materials where one
// side has no piece are left out.
std::vector<Material> materials_with(int pieces, bool both_sides_present);

// ---- build order (format/src/material_order.cpp) ----
// Whether `a` is built before `b`: fewer pieces first (captures remove
// pieces), then fewer men (promotion turns a man into a king), then by
// operator<=> (deterministic).  Every material comes after what it converts into.
bool build_before(const Material& a, const Material& b);
// Every canonical material with both sides present and 2..n pieces, in
// build order.  Cost: microseconds.
std::vector<Material> build_order(int max_pieces);
// The canonical materials `m` can convert into by one capture or promotion
// (both sides present), in build order.
std::vector<Material> successors(const Material& m);
// Every canonical material `m` converts into by one or more captures or
// promotions (both sides present), in build order: what the value oracle's
// search over captures may read for a position of m.
std::vector<Material> successors_closure(const Material& m);

}  // namespace damka
