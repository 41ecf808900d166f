// Board geometry shared by every variant.
//
// Square numbering (internal, used by bitboards, indexes and the C API):
//   The 32 playing squares are numbered 0..31 row by row from White's side.
//   Square s lies on row r = s / 4 (row 0 = rank 1) and file
//   f = 2 * (s % 4) + (r & 1) (file 0 = 'a').  So a1 = 0, c1 = 1, e1 = 2,
//   g1 = 3, b2 = 4, ..., h8 = 31.  White's men move toward row 7 (rank 8).
//   Rotating the board by 180 degrees maps square s to 31 - s, i.e. it is a
//   bit reversal of a bitboard.
//
// Mirrored variants (Filipino, Mozambique) use the same internal geometry;
// only their square names are converted at input/output (see notation.hpp).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace damka {

using Bitboard = std::uint32_t;
constexpr int kNumSquares = 32;

enum class Color : std::uint8_t { White = 0, Black = 1 };
constexpr Color opposite(Color c) { return c == Color::White ? Color::Black : Color::White; }
constexpr int idx(Color c) { return static_cast<int>(c); }
// The colour's word in JSON and options ("white", "black") and in sentences
// ("White", "Black").  Every front end and report uses these (words.hpp).
constexpr const char* color_word(Color c) { return c == Color::White ? "white" : "black"; }
constexpr const char* color_title(Color c) { return c == Color::White ? "White" : "Black"; }

// Diagonal directions; "up" is toward row 7 (rank 8).
enum Dir : int { UpLeft = 0, UpRight = 1, DownLeft = 2, DownRight = 3 };
constexpr int kNumDirs = 4;
constexpr Dir reverse(Dir d) { return static_cast<Dir>(3 - d); }

constexpr int row_of(int s) { return s >> 2; }
constexpr int file_of(int s) { return 2 * (s & 3) + ((s >> 2) & 1); }
// Square at (file, row), or -1 if off board or a non-playing square.
constexpr int square_at(int file, int row) {
  if (file < 0 || file > 7 || row < 0 || row > 7) return -1;
  if (((file + row) & 1) != 0) return -1;
  return row * 4 + file / 2;
}
constexpr Bitboard bit(int s) { return Bitboard{1} << s; }
// The bits set in b.  Where the target has POPCNT (-march=native, x86-64-v2
// and up) std::popcount is one instruction; at GCC's x86-64 baseline, the
// portable default build, it is a call to libgcc's __popcountdi2, so there
// the same bit-parallel sum is inlined instead (a portable `generate -n 5`
// 26.9 -> 26.0 s, `-n 6` no difference, 2026-12-05).  Every bit count of the
// hot paths (index, king walk, move generator, engine) goes through here.
constexpr int popcount(Bitboard b) {
#if defined(__x86_64__) && !defined(__POPCNT__) && !defined(__clang__)
  b -= (b >> 1) & 0x55555555u;
  b = (b & 0x33333333u) + ((b >> 2) & 0x33333333u);
  b = (b + (b >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((b * 0x01010101u) >> 24);
#else
  return std::popcount(b);
#endif
}
constexpr int lsb(Bitboard b) { return std::countr_zero(b); }
constexpr Bitboard rotate180(Bitboard b) {
  // Bit reversal of a 32-bit word.
  b = ((b >> 1) & 0x55555555u) | ((b & 0x55555555u) << 1);
  b = ((b >> 2) & 0x33333333u) | ((b & 0x33333333u) << 2);
  b = ((b >> 4) & 0x0F0F0F0Fu) | ((b & 0x0F0F0F0Fu) << 4);
  b = ((b >> 8) & 0x00FF00FFu) | ((b & 0x00FF00FFu) << 8);
  return (b >> 16) | (b << 16);
}

constexpr Bitboard row_mask(int r) { return Bitboard{0xFu} << (4 * r); }
// The row on which a man of colour c promotes.
constexpr Bitboard promotion_row(Color c) { return c == Color::White ? row_mask(7) : row_mask(0); }

namespace detail {
constexpr int dfile(Dir d) { return (d == UpLeft || d == DownLeft) ? -1 : 1; }
constexpr int drow(Dir d) { return (d == UpLeft || d == UpRight) ? 1 : -1; }
struct Geometry {
  std::array<std::array<std::int8_t, kNumDirs>, kNumSquares> step{};  // -1 if off board
  std::array<std::array<Bitboard, kNumDirs>, kNumSquares> ray{};       // squares beyond s along d
  std::array<Bitboard, kNumSquares> near{};                            // s's neighbours (one step each way)
  Bitboard main_road = 0;
  constexpr Geometry() {
    for (int s = 0; s < kNumSquares; ++s) {
      for (int d = 0; d < kNumDirs; ++d) {
        const Dir dir = static_cast<Dir>(d);
        step[s][d] = static_cast<std::int8_t>(square_at(file_of(s) + dfile(dir), row_of(s) + drow(dir)));
        Bitboard r = 0;
        for (int f = file_of(s) + dfile(dir), w = row_of(s) + drow(dir); square_at(f, w) >= 0;
             f += dfile(dir), w += drow(dir))
          r |= bit(square_at(f, w));
        ray[s][d] = r;
        if (step[s][d] >= 0) near[s] |= bit(step[s][d]);
      }
      if (file_of(s) == row_of(s)) main_road |= bit(s);
    }
  }
};
inline constexpr Geometry kGeometry{};
}  // namespace detail

// Neighbour of s in direction d, or -1.
constexpr int step(int s, Dir d) { return detail::kGeometry.step[s][d]; }
// All squares beyond s in direction d (not including s).
constexpr Bitboard ray(int s, Dir d) { return detail::kGeometry.ray[s][d]; }
// The squares one step from s, each direction.
constexpr Bitboard neighbours(int s) { return detail::kGeometry.near[s]; }
// The long diagonal a1-h8 ("main road").
constexpr Bitboard kMainRoad = detail::kGeometry.main_road;

static_assert(square_at(0, 0) == 0 && square_at(7, 7) == 31 && square_at(1, 1) == 4);
static_assert(popcount(detail::kGeometry.main_road) == 8);
static_assert(rotate180(1u) == 0x80000000u);

}  // namespace damka
