// The statutes tests' own solver (see own_solver.hpp).
#include "own_solver.hpp"

#include <algorithm>
#include <stdexcept>

namespace own {

using damka::Position;
using damka::Value;
using damka::Wdl;

Graph::Graph(const damka::Rules& rules, const std::vector<Position>& roots) {
  auto add = [&](const Position& p) {
    auto [it, fresh] = ids_.emplace(p, static_cast<std::uint32_t>(positions_.size()));
    if (fresh) positions_.push_back(p);
    return it->second;
  };
  for (const Position& p : roots) add(p);
  damka::MoveList moves;
  first_.push_back(0);
  // positions_ grows while it is walked: index, do not iterate.
  for (std::size_t i = 0; i < positions_.size(); ++i) {
    const Position p = positions_[i];
    if (p.pieces(p.side_to_move) != 0) {
      damka::generate_moves(rules, p, moves);
      const damka::Bitboard my_men = p.men[damka::idx(p.side_to_move)];
      for (const damka::Move& m : moves) {
        std::uint8_t k = 0;
        if (m.is_capture()) k |= kCapture;
        if (m.promotes) k |= kPromotion;
        if (my_men & damka::bit(m.from)) k |= kManMove;
        const std::uint32_t j = add(damka::apply(p, m));
        to_.push_back(j);
        kind_.push_back(k);
      }
    }
    first_.push_back(static_cast<std::uint32_t>(to_.size()));
  }
}

std::vector<Value> Graph::solve_dtw() const {
  const std::size_t n = size();
  std::vector<Value> v(n);
  std::vector<char> solved(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (first_[i] == first_[i + 1]) {
      v[i] = Value::loss(0);
      solved[i] = 1;
    }
  }
  for (int round = 1;; ++round) {
    std::vector<std::pair<std::size_t, Value>> found;
    for (std::size_t i = 0; i < n; ++i) {
      if (solved[i]) continue;
      bool win = false, all_won = true;
      int longest = -1;
      for (std::uint32_t e = first_[i]; e < first_[i + 1]; ++e) {
        const std::uint32_t j = to_[e];
        if (!solved[j]) {
          all_won = false;
          continue;
        }
        if (v[j].wdl == Wdl::Loss && v[j].plies == round - 1) win = true;
        if (v[j].wdl != Wdl::Win) all_won = false;
        else longest = std::max<int>(longest, v[j].plies);
      }
      if (win) found.emplace_back(i, Value::win(round));
      else if (all_won && longest == round - 1) found.emplace_back(i, Value::loss(round));
    }
    if (found.empty()) break;
    for (const auto& [i, x] : found) {
      v[i] = x;
      solved[i] = 1;
    }
  }
  return v;  // unsolved positions stay Value::draw()
}

std::vector<Value> Graph::solve_reset(const std::vector<Value>& dtw, unsigned reset_kinds) const {
  const std::size_t n = size();
  std::vector<Value> v(n);
  std::vector<char> solved(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (dtw[i].wdl == Wdl::Draw) solved[i] = 1;
    else if (first_[i] == first_[i + 1]) {
      v[i] = Value::loss(0);
      solved[i] = 1;
    }
  }
  for (int round = 1;; ++round) {
    std::vector<std::pair<std::size_t, Value>> found;
    for (std::size_t i = 0; i < n; ++i) {
      if (solved[i]) continue;
      const bool winner = dtw[i].wdl == Wdl::Win;
      bool done = false, waiting = false;
      int worst = 0;
      for (std::uint32_t e = first_[i]; e < first_[i + 1] && !done; ++e) {
        const std::uint32_t j = to_[e];
        const bool reset = (kind_[e] & reset_kinds) != 0;
        if (winner) {
          if (dtw[j].wdl != Wdl::Loss) continue;  // does not keep the win
          if (reset ? round == 1 : (solved[j] && v[j].plies == round - 1)) done = true;
        } else if (reset) {
          worst = std::max(worst, 1);
        } else if (!solved[j]) {
          waiting = true;
        } else {
          worst = std::max(worst, v[j].plies + 1);
        }
      }
      if (winner && done) found.emplace_back(i, Value::win(round));
      else if (!winner && !waiting && worst == round) found.emplace_back(i, Value::loss(round));
    }
    if (found.empty()) break;
    for (const auto& [i, x] : found) {
      v[i] = x;
      solved[i] = 1;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!solved[i]) throw std::logic_error("own solver: a decided position has no reset distance");
  return v;
}

}  // namespace own
