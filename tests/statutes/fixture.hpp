// Shared, lazily built test data: the rulebooks, a generator Solver holding
// 3 kings vs 1 king (and what it converts into), and the tests' own solution
// of the same positions (own_solver.hpp).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "damka/solver.hpp"
#include "damka/statute_json.hpp"
#include "damka/statutes.hpp"
#include "own_solver.hpp"

namespace statutes_test {

inline const damka::Rules& russian() { return damka::rules_of(damka::Variant::Russian); }

inline damka::Rulebook book(const char* name) {
  auto b = damka::load_rulebook(name, damka::rulebook_search_path());
  if (!b) ADD_FAILURE() << b.message();
  return b ? *b : damka::Rulebook{};
}

// Every position of `wk` white kings vs one black king, both sides to move.
inline std::vector<damka::Position> kings_vs_king(int wk) {
  std::vector<damka::Position> out;
  std::vector<int> sq(wk);
  for (int i = 0; i < wk; ++i) sq[i] = i;
  for (;;) {
    damka::Bitboard w = 0;
    for (int s : sq) w |= damka::bit(s);
    for (int b = 0; b < damka::kNumSquares; ++b) {
      if (w & damka::bit(b)) continue;
      for (damka::Color stm : {damka::Color::White, damka::Color::Black}) {
        damka::Position p;
        p.kings[0] = w;
        p.kings[1] = damka::bit(b);
        p.side_to_move = stm;
        out.push_back(p);
      }
    }
    // Next combination of wk squares out of 32.
    int i = wk - 1;
    while (i >= 0 && sq[i] == damka::kNumSquares - wk + i) --i;
    if (i < 0) break;
    ++sq[i];
    for (int k = i + 1; k < wk; ++k) sq[k] = sq[k - 1] + 1;
  }
  return out;
}

struct ThreeKings {
  damka::Solver solver{russian(), 2};
  std::vector<damka::Position> roots;  // 3Kv1K, both sides to move
  std::unique_ptr<own::Graph> graph;
  std::vector<damka::Value> dtw, dtc;  // own values, indexed like graph

  ThreeKings() {
    solver.solve(damka::Material{0, 3, 0, 1});
    roots = kings_vs_king(3);
    graph = std::make_unique<own::Graph>(russian(), roots);
    dtw = graph->solve_dtw();
    dtc = graph->solve_reset(dtw, own::kCapture | own::kPromotion);
  }
  damka::Value own_dtw(const damka::Position& p) const { return dtw[graph->id(p)]; }
  damka::Value own_dtc(const damka::Position& p) const { return dtc[graph->id(p)]; }
};

inline const ThreeKings& three_kings() {
  static const ThreeKings t;
  return t;
}

}  // namespace statutes_test
