// Private to the engine: a material's levels, units and level value arrays.
#pragma once

#include <cstdint>
#include <vector>

#include "damka/engine.hpp"
#include "damka/index.hpp"
#include "damka/table_file.hpp"

namespace damka::engine_detail {

// No value yet (a slot's code, a best exit's, a queued distance): the code
// files use for don't care, so a slot no pass sets is written as one.
constexpr std::uint16_t kUnset = kDontCareCode;
constexpr int kMaxPasses = 3;

// Progress of the men (see engine.hpp): every man move raises it by one.
inline int progress_of(Bitboard white_men, Bitboard black_men) {
  int p = 0;
  for (Bitboard b = white_men; b; b &= b - 1) p += row_of(lsb(b));
  for (Bitboard b = black_men; b; b &= b - 1) p += 7 - row_of(lsb(b));
  return p;
}

// How many men configurations of a material each level (progress) has: all
// that a memory plan reads (plan_memory, verify's level_bytes).  Cost: one
// enumeration of the configurations, nothing stored per configuration
// (Layout's lists of a men-heavy 7-piece material are hundreds of MB, whose
// page faults and growth were most of a `--dry-run`'s time).
struct LevelSizes {
  Material m;
  MaterialIndex index;
  bool sym;
  int sides;
  std::uint64_t K;                 // kings_per_slice
  std::vector<std::uint64_t> size;  // configurations per level, by progress

  explicit LevelSizes(const Material& canonical);
  std::size_t count() const { return size.size(); }
  std::uint64_t level_slots(int p) const { return sides * size[static_cast<std::size_t>(p)] * K; }
};

// The men configurations of a material grouped by progress.  In a level of
// n configurations, the values of (side s, configuration at position i, king
// placement k) are at (s * n + i) * K + k (symmetric materials: s = 0 only).
struct Layout : LevelSizes {
  std::vector<std::vector<std::uint64_t>> levels;  // configurations by progress, ascending
  std::vector<std::uint32_t> pos;                  // position of a configuration in its level
  std::vector<std::uint8_t> level_of;              // progress of a configuration

  explicit Layout(const Material& canonical);
  // Offset in its level's arrays of (side, configuration)'s K values.
  std::uint64_t level_offset(int side, std::uint64_t config) const {
    return (static_cast<std::uint64_t>(side) * size[level_of[config]] + pos[config]) * K;
  }
};

// One unit: one or two parts (side to move, men) closed under quiet king moves.
struct Unit {
  int parts = 1;
  Color side[2] = {Color::White, Color::White};
  Bitboard wm[2] = {0, 0}, bm[2] = {0, 0};
  std::uint64_t offset[2] = {0, 0};  // where each part's K values start in the level's arrays
};

// The units of level p, in a fixed order (the same for any `threads`, the
// threads that make them).
std::vector<Unit> units_of_level(const Layout& L, int p, int threads = 1);

}  // namespace damka::engine_detail
