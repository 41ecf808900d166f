// The statutes tests' own count over (position, counter) states, without
// the pass engine (see statute_aware_test.cpp for the definition): a
// balance's positions reachable by moves that keep it, and for each side X
// A_X(p, c), "X, having made c moves under the count, can still end it
// winning within the limit".
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "fixture.hpp"

namespace statutes_test {

using namespace damka;

// Chain value of a position an exit reaches, for its side to move.
using ExitValue = std::function<Wdl(const Position&)>;

// The positions of one balance reachable from roots by moves that keep it
// (no capture, no promotion), with what their exits are worth.
struct Balance {
  std::vector<Position> nodes;
  std::unordered_map<Position, std::uint32_t, own::PositionHash> id;
  std::vector<std::vector<std::uint32_t>> next;  // moves that keep the balance
  std::vector<char> no_moves;
  std::vector<char> exit_wins;   // some exit leaves the opponent lost
  std::vector<char> exit_loses;  // every exit leaves the opponent won (true when there is none)

  Balance(const std::vector<Position>& roots, const ExitValue& exit_value) {
    auto add = [&](const Position& p) {
      auto [it, fresh] = id.emplace(p, static_cast<std::uint32_t>(nodes.size()));
      if (fresh) nodes.push_back(p);
      return it->second;
    };
    for (const Position& p : roots) add(p);
    MoveList moves;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Position p = nodes[i];
      generate_moves(russian(), p, moves);
      std::vector<std::uint32_t> n;
      bool wins = false, loses = true;
      for (const Move& m : moves) {
        const Position q = apply(p, m);
        if (m.is_capture() || m.promotes) {
          const Wdl w = q.pieces(q.side_to_move) == 0 ? Wdl::Loss : exit_value(q);
          wins = wins || w == Wdl::Loss;
          loses = loses && w == Wdl::Win;
        } else {
          n.push_back(add(q));
        }
      }
      next.push_back(std::move(n));
      no_moves.push_back(moves.empty());
      exit_wins.push_back(wins);
      exit_loses.push_back(loses);
    }
  }

  // a[c][i] = A_X(node i, c).
  std::vector<std::vector<char>> solve(Color x, int limit) const {
    const std::size_t n = nodes.size();
    std::vector<std::vector<char>> a(static_cast<std::size_t>(limit) + 1, std::vector<char>(n, 0));
    for (int c = limit; c >= 0; --c) {
      auto& ac = a[static_cast<std::size_t>(c)];
      for (std::size_t i = 0; i < n; ++i) {
        if (nodes[i].side_to_move != x || no_moves[i] || c == limit) continue;
        bool ok = exit_wins[i];
        for (std::uint32_t j : next[i]) ok = ok || a[static_cast<std::size_t>(c) + 1][j];
        ac[i] = ok;
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (nodes[i].side_to_move == x) continue;
        bool ok = no_moves[i] || exit_loses[i];
        if (!no_moves[i])
          for (std::uint32_t j : next[i]) ok = ok && ac[j];
        ac[i] = ok;
      }
    }
    return a;
  }
};

struct Own {
  Value value;  // win / loss / draw for the side to move (plies unused)
  int needed = -1;
};

// Own statute-aware values of every node, fresh count.
inline std::vector<Own> own_values(const Balance& b, int limit) {
  const auto aw = b.solve(Color::White, limit), ab = b.solve(Color::Black, limit);
  std::vector<Own> out(b.nodes.size());
  for (std::size_t i = 0; i < b.nodes.size(); ++i) {
    for (Color x : {Color::White, Color::Black}) {
      const auto& a = x == Color::White ? aw : ab;
      if (!a[0][i]) continue;
      int cmax = 0;
      while (cmax + 1 <= limit && a[static_cast<std::size_t>(cmax) + 1][i]) ++cmax;
      out[i].needed = limit - cmax;
      out[i].value = x == b.nodes[i].side_to_move ? Value::win(0) : Value::loss(0);
    }
  }
  return out;
}

}  // namespace statutes_test
