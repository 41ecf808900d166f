// The build order of materials and what each converts into (material.hpp).
#include <algorithm>
#include <set>

#include "damka/material.hpp"

namespace damka {

// Build order: fewer pieces first (captures remove pieces), then fewer men
// (promotion turns a man into a king, keeping the piece count), then by the
// material's own order so that the result is deterministic.
bool build_before(const Material& a, const Material& b) {
  if (a.pieces() != b.pieces()) return a.pieces() < b.pieces();
  if (a.men() != b.men()) return a.men() < b.men();
  return a < b;
}

namespace {

// Materials reached by one move of `side` from `m` (not canonicalised),
// whether or not a concrete position allows it: every capture of 1..all
// opponent pieces, with or without the mover's promotion, and promotion alone.
void moves_of_side(const Material& m, Color side, std::set<Material>& out) {
  const Material w = side == Color::White ? m : m.flipped();  // mover is "white"
  auto add = [&](Material x) {
    if (x.white() > 0 && x.black() > 0) out.insert((side == Color::White ? x : x.flipped()).canonical());
  };
  for (int promote = 0; promote <= (w.wm > 0 ? 1 : 0); ++promote) {
    for (int dm = 0; dm <= w.bm; ++dm) {
      for (int dk = 0; dk <= w.bk; ++dk) {
        if (dm + dk == 0 && !promote) continue;
        add(Material{w.wm - promote, w.wk + promote, w.bm - dm, w.bk - dk});
      }
    }
  }
}

}  // namespace

std::vector<Material> successors(const Material& m) {
  std::set<Material> out;
  moves_of_side(m, Color::White, out);
  moves_of_side(m, Color::Black, out);
  out.erase(m.canonical());
  std::vector<Material> v(out.begin(), out.end());
  std::sort(v.begin(), v.end(), build_before);
  return v;
}

std::vector<Material> successors_closure(const Material& m) {
  std::set<Material> seen;
  std::vector<Material> todo = successors(m);
  for (std::size_t i = 0; i < todo.size(); ++i)
    if (seen.insert(todo[i]).second)
      for (const Material& s : successors(todo[i])) todo.push_back(s);
  std::vector<Material> v(seen.begin(), seen.end());
  std::sort(v.begin(), v.end(), build_before);
  return v;
}

std::vector<Material> build_order(int max_pieces) {
  std::vector<Material> v;
  for (int n = 2; n <= max_pieces; ++n)
    for (const Material& m : materials_with(n, true))
      if (m.is_canonical()) v.push_back(m);
  std::sort(v.begin(), v.end(), build_before);
  return v;
}

}  // namespace damka
