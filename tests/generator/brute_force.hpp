// An independent brute-force solver, used only by tests as the reference the
// retrograde generator is judged against.
//
// It shares nothing with the generator except the move generator itself
// (damka::generate_moves + damka::apply): no un-moves, no table index, no
// material ordering.  It collects every position reachable from the roots into
// a hash map, stores the move graph, and solves it by forward fixpoint
// iteration on the distance:
//
//   DTW  iteration 0: a side with no legal move (or no piece) loses in 0.
//        iteration k: an undecided position is a WIN in k if some move leads
//        to a position decided as LOSS in k-1; a LOSS in k if every move leads
//        to a decided WIN and the largest of those distances is k-1.  Stop when
//        an iteration decides nothing; the rest are draws.
//   DTC  for decided positions only (draws stay draws).  A conversion is a move
//        that captures or promotes; its cost is 1.  Any other move costs
//        1 + DTC(successor).  The winner takes the least cost over the moves
//        that keep the win (the successor is LOST for the opponent); the loser
//        the greatest cost over all its moves; no move: loss with DTC 0.
//        Solved by the same kind of iteration on the distance k.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "damka/position.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"

namespace damka::brute {

// Piece counts of a material (own struct: nothing shared with format).
struct Counts {
  int wm = 0, wk = 0, bm = 0, bk = 0;
  int total() const { return wm + wk + bm + bk; }
  // e.g. "KKvKM" (kings first, then men; white before 'v').
  std::string name() const;
  friend bool operator==(const Counts&, const Counts&) = default;
};

// Every legal position of the material with the given side to move: pieces on
// distinct squares, white men not on row 8 (squares 28..31), black men not on
// row 1 (squares 0..3).  Plain nested enumeration over bitboards.
std::vector<Position> enumerate_positions(const Counts& c, Color side_to_move);
// Both sides to move (white to move first).
std::vector<Position> enumerate_positions(const Counts& c);

// "W3", "L0", "D" -- for failure messages.
std::string to_string(const Value& v);
std::string to_string(const std::optional<Value>& v);

struct BruteStats {
  std::uint64_t roots = 0;
  std::uint64_t nodes = 0;   // positions in the graph (roots and everything reachable)
  std::uint64_t edges = 0;   // moves (identical moves merged)
  std::uint64_t wins = 0, draws = 0, losses = 0;
  int dtw_iterations = 0;    // largest DTW distance found
  int dtc_iterations = 0;    // largest DTC distance found
  std::uint64_t dtc_missing = 0;  // decided positions left without DTC (must be 0)
  double seconds_graph = 0, seconds_dtw = 0, seconds_dtc = 0;
};

class BruteForce {
 public:
  // Solves every position of the material (both sides to move) and
  // everything reachable from them.
  BruteForce(const Rules& rules, const Counts& material);
  // Solves the given positions and everything reachable from them.
  BruteForce(const Rules& rules, const std::vector<Position>& roots);

  // Values of a position in the graph; nullopt if it is not there.
  std::optional<Value> dtw(const Position& p) const;
  std::optional<Value> dtc(const Position& p) const;
  std::optional<Value> wdl(const Position& p) const;

  // The roots (for the material constructor: every position of the material,
  // white to move first, then black to move).
  std::vector<Position> positions_of_root_material() const;
  std::size_t num_roots() const { return num_roots_; }
  std::size_t size() const { return positions_.size(); }
  const Position& position(std::size_t node) const { return positions_[node]; }
  Value dtw_of_node(std::size_t node) const;
  Value dtc_of_node(std::size_t node) const;
  std::optional<std::size_t> find(const Position& p) const;

  // Successors of a node: (successor node, whether the move is a conversion).
  struct Edge {
    std::uint32_t to;
    bool conversion;
  };
  std::vector<Edge> successors(std::size_t node) const;

  const BruteStats& stats() const { return stats_; }
  const Rules& rules() const { return rules_; }

 private:
  void build(const std::vector<Position>& roots);
  void solve_dtw();
  void solve_dtc();
  std::uint32_t insert(const Position& p, bool& inserted);
  void grow();

  const Rules& rules_;
  std::size_t num_roots_ = 0;
  std::vector<Position> positions_;
  // Open-addressing hash table: slot -> node + 1 (0 = empty).
  std::vector<std::uint32_t> table_;
  std::uint64_t mask_ = 0;
  // Move graph in compressed rows; the top bit of a target marks a conversion.
  std::vector<std::uint32_t> edge_begin_;
  std::vector<std::uint32_t> edge_target_;
  // Per node: 0 undecided/draw, 1 win, 2 loss; distances.
  std::vector<std::uint8_t> state_;
  std::vector<std::uint16_t> dtw_plies_;
  std::vector<std::uint16_t> dtc_plies_;  // kNoDtc if not decided
  BruteStats stats_;
};

}  // namespace damka::brute
