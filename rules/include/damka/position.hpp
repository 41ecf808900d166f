// A draughts position: four bitboards (men and kings of each colour) and the
// side to move.  Square numbering is documented in board.hpp.
#pragma once

#include "damka/board.hpp"

namespace damka {

enum class Piece : std::uint8_t { Man = 0, King = 1 };

struct Position {
  Bitboard men[2] = {0, 0};    // indexed by idx(Color)
  Bitboard kings[2] = {0, 0};  // indexed by idx(Color)
  Color side_to_move = Color::White;

  constexpr Bitboard pieces(Color c) const { return men[idx(c)] | kings[idx(c)]; }
  constexpr Bitboard occupied() const { return pieces(Color::White) | pieces(Color::Black); }
  constexpr Bitboard empty() const { return ~occupied(); }
  constexpr int count() const { return popcount(occupied()); }

  // Rotate 180 degrees and swap colours, including the side to move.  The
  // result is the same game seen from the other side; its value for the side
  // to move is identical.
  constexpr Position flipped() const {
    Position p;
    p.men[0] = rotate180(men[1]);
    p.men[1] = rotate180(men[0]);
    p.kings[0] = rotate180(kings[1]);
    p.kings[1] = rotate180(kings[0]);
    p.side_to_move = opposite(side_to_move);
    return p;
  }

  // Basic sanity: no square used twice, no man on its own promotion row.
  constexpr bool is_valid() const {
    const Bitboard all[4] = {men[0], men[1], kings[0], kings[1]};
    Bitboard seen = 0;
    for (Bitboard b : all) {
      if (seen & b) return false;
      seen |= b;
    }
    return (men[0] & promotion_row(Color::White)) == 0 && (men[1] & promotion_row(Color::Black)) == 0;
  }

  friend constexpr bool operator==(const Position&, const Position&) = default;
};

}  // namespace damka
