// The statutes tests' own solver, independent of the generator: every
// position reachable from the roots (generate_moves + apply only) is put in a
// hash map with its move list, then solved by plain forward iteration on the
// distance.
//
//   DTW     round 0: a side with no move (or no piece) has lost in 0.  Round n:
//           an unsolved position is won in n if a move leads to a position
//           lost in n-1; lost in n if every move leads to a won position and
//           the longest of those is n-1.  The first round that solves nothing
//           ends it; what is left is drawn.
//   reset   for a set of move kinds that restart a count (capture, promotion,
//           man move): a restarting move costs 1, any other move 1 + the
//           successor's distance; the winner takes the cheapest move that keeps
//           the win (its successor is lost), the loser the dearest move; no
//           move: 0.  Same rounds.  Capture + promotion gives DTC.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "damka/movegen.hpp"
#include "damka/value.hpp"

namespace own {

enum Kind : std::uint8_t { kCapture = 1, kPromotion = 2, kManMove = 4 };

struct PositionHash {
  std::size_t operator()(const damka::Position& p) const {
    std::uint64_t h = p.men[0] * 0x9E3779B97F4A7C15ull;
    h ^= (p.men[1] + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= (p.kings[0] + 0x85EBCA77C2B2AE63ull) * 0x165667B19E3779F9ull;
    h ^= (p.kings[1] + 0x27D4EB2F165667C5ull) * 0xD6E8FEB86659FD93ull;
    h ^= static_cast<std::uint64_t>(p.side_to_move) << 63;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

class Graph {
 public:
  Graph(const damka::Rules& rules, const std::vector<damka::Position>& roots);
  std::size_t size() const { return positions_.size(); }
  const damka::Position& position(std::size_t i) const { return positions_[i]; }
  std::size_t id(const damka::Position& p) const { return ids_.at(p); }
  // Values for the side to move, indexed like position().
  std::vector<damka::Value> solve_dtw() const;
  std::vector<damka::Value> solve_reset(const std::vector<damka::Value>& dtw, unsigned reset_kinds) const;

 private:
  std::vector<damka::Position> positions_;
  std::unordered_map<damka::Position, std::uint32_t, PositionHash> ids_;
  std::vector<std::uint32_t> first_;  // edges of i: first_[i] .. first_[i+1]
  std::vector<std::uint32_t> to_;
  std::vector<std::uint8_t> kind_;
};

}  // namespace own
