// The one dense key of a material: a number in [0, kMaterialNumbers) for
// every material of at most kMaxIndexPieces pieces, for tables indexed by
// material (the probe's table of open files; look-ups on the hot path).
#pragma once

#include <array>

#include "damka/index.hpp"
#include "damka/material.hpp"

namespace damka {

namespace material_number_detail {
// number = base[wm][wk][bm] + bk: materials in (wm, wk, bm, bk) order.
struct Numbering {
  static constexpr int kP = kMaxIndexPieces;
  std::array<std::array<std::array<int, kP + 1>, kP + 1>, kP + 1> base{};
  int total = 0;
  constexpr Numbering() {
    for (int wm = 0; wm <= kP; ++wm)
      for (int wk = 0; wm + wk <= kP; ++wk)
        for (int bm = 0; wm + wk + bm <= kP; ++bm) {
          base[wm][wk][bm] = total;
          total += kP + 1 - wm - wk - bm;
        }
  }
};
inline constexpr Numbering kNumbering{};
}  // namespace material_number_detail

// How many numbers there are (4845).
inline constexpr int kMaterialNumbers = material_number_detail::kNumbering.total;

// Whether m has a number: no count negative, at most kMaxIndexPieces pieces.
constexpr bool has_material_number(const Material& m) {
  return m.wm >= 0 && m.wk >= 0 && m.bm >= 0 && m.bk >= 0 && m.pieces() <= kMaxIndexPieces;
}

// The number of m (has_material_number(m) must hold): distinct materials
// have distinct numbers.  Cost: one table read.  Thread-safe.
constexpr int material_number(const Material& m) {
  return material_number_detail::kNumbering.base[m.wm][m.wk][m.bm] + m.bk;
}

}  // namespace damka
