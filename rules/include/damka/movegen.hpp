// The one move generator, driven by a Rules description.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "damka/position.hpp"
#include "damka/rules.hpp"

namespace damka {

// A move: the moving piece's start square, every square it lands on (for a
// quiet move just the destination; for a capture each landing square in
// order), the set of pieces it takes, and whether it ends as a new king.
struct Move {
  static constexpr int kMaxSteps = 16;
  std::uint8_t from = 0;
  std::uint8_t to = 0;
  std::uint8_t num_steps = 0;
  bool promotes = false;
  Bitboard taken = 0;
  // The taken pieces in the order they were jumped, 5 bits each (first in
  // the lowest bits); two capture paths are the same path when they start,
  // end and take the same pieces in the same order.
  std::uint64_t victim_order = 0;
  std::array<std::uint8_t, kMaxSteps> path{};  // path[num_steps - 1] == to

  constexpr bool is_capture() const { return taken != 0; }
  // Identical moves (same start, end, taken set and promotion) give the same position.
  constexpr bool same_result(const Move& o) const {
    return from == o.from && to == o.to && taken == o.taken && promotes == o.promotes;
  }
};

using MoveList = std::vector<Move>;

enum class MoveMode : std::uint8_t {
  Merged,    // identical moves (same start, end, taken set) counted once
  AllPaths,  // every capture path (order of pieces taken) kept separately
};

// All legal moves of the side to move, appended to `out` after clearing it.
void generate_moves(const Rules& r, const Position& p, MoveList& out, MoveMode mode = MoveMode::Merged);
// Number of legal moves (fast path for quiet positions).
std::uint64_t count_moves(const Rules& r, const Position& p, MoveMode mode = MoveMode::Merged);
// Whether the side to move has a capture (and therefore must capture).
bool has_capture(const Rules& r, const Position& p);
// Parts of generate_moves for callers that treat king and man moves apart
// (the generator): valid only when !has_capture(r, p).  The quiet man moves
// of the side to move, appended to `out` after clearing it, in
// generate_moves' order; and the squares a king on s can step or fly to
// without capturing, given the occupied squares.  Cost: a few bit
// operations per move; thread-safe.
void generate_quiet_man_moves(const Position& p, MoveList& out);
// The captures of the side to move as generate_moves gives them; valid only
// when has_capture(r, p) (saves generate_moves' own check).
void generate_capture_moves(const Rules& r, const Position& p, MoveList& out, MoveMode mode = MoveMode::Merged);
// has_capture(r, p) and, where true, the captures in `out` (cleared first;
// left empty where false): one look for the capture positions that callers
// would otherwise check with has_capture, then generate.  Costs about what
// has_capture costs where p has no capture.  Thread-safe.
bool generate_capture_moves_if_any(const Rules& r, const Position& p, MoveList& out,
                                   MoveMode mode = MoveMode::Merged);
// The squares a king on s can step or fly to along d without capturing,
// given the occupied squares: the next square if empty (a short king); a
// flying king's squares before the first piece on the ray (all of the ray
// without one).  Branch-free for a flying king.  Thread-safe.
inline Bitboard king_targets_along(const Rules& r, int s, Dir d, Bitboard occupied) {
  if (r.king_range == KingRange::Short) return ray(s, d) & neighbours(s) & ~occupied;  // the next square
  const Bitboard hits = ray(s, d) & occupied;
  if (d == UpLeft || d == UpRight)  // rising square numbers: below the lowest piece
    return ray(s, d) & ((hits & (0u - hits)) - 1);
  // falling square numbers: above the highest piece
  return ray(s, d) & static_cast<Bitboard>(~std::uint64_t{0} << (32 - std::countl_zero(hits)));
}
// The squares a king on s can step or fly to without capturing (see above),
// given the occupied squares: king_targets_along over the four directions.
// Inline: the generator calls it per king of every position it gathers and
// every un-move it ranks.
inline Bitboard king_step_targets(const Rules& r, int s, Bitboard occupied) {
  if (r.king_range == KingRange::Short) return neighbours(s) & ~occupied;
  return king_targets_along(r, s, UpLeft, occupied) | king_targets_along(r, s, UpRight, occupied) |
         king_targets_along(r, s, DownLeft, occupied) | king_targets_along(r, s, DownRight, occupied);
}
// The position after `m`; the side to move changes.
Position apply(const Position& p, const Move& m);
// Leaf count at `depth` plies.
std::uint64_t perft(const Rules& r, const Position& p, int depth, MoveMode mode = MoveMode::Merged);

}  // namespace damka
