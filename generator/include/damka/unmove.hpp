// Un-moves of quiet king moves (used by the retrograde solver and statutes).
//
// A quiet king move from a to b is undone by moving the king from b back to a
// along the same free diagonal, so the un-move targets of a king on b are
// exactly its forward quiet-move targets on the same occupancy.  A quiet move
// is illegal when a capture exists, so the caller must drop predecessors
// whose side to move has a capture (the solver knows this from its forward
// pass; see Facts::capture).
#pragma once

#include "damka/movegen.hpp"

namespace damka {

template <class F>
void for_each_king_unmove(const Rules& r, const Position& q, F&& f) {
  const Color mover = opposite(q.side_to_move);
  const Bitboard occ = q.occupied();
  for (Bitboard kings = q.kings[idx(mover)]; kings; kings &= kings - 1) {
    const int b = lsb(kings);
    for (int d = 0; d < kNumDirs; ++d) {
      const Dir dir = static_cast<Dir>(d);
      for (int a = step(b, dir); a >= 0 && !(occ & bit(a)); a = step(a, dir)) {
        Position p = q;
        p.kings[idx(mover)] ^= bit(a) | bit(b);
        p.side_to_move = mover;
        f(p);
        if (r.king_range == KingRange::Short) break;
      }
    }
  }
}

}  // namespace damka
