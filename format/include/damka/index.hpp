// A perfect index per material: a bijection between the legal placements of
// a material (men never on their own promotion row, no square used twice)
// and 0..size()-1.  The side to move is not part of the index.
//
// Layout: slice-major.  A slice is one configuration of the men of both
// colours; inside a slice the kings take every way of standing on the free
// squares.  So
//     rank(p) = rank_men(white men, black men) * kings_per_slice()
//             + rank_kings(white kings, black kings, men squares)
// and a king move never leaves its slice (men moves are irreversible, so a
// generator can solve one slice at a time).
//
// Building block: the colex rank of a set of k squares s_1 < s_2 < ... < s_k
// taken from the squares 0..n-1 is
//     colex(S) = C(s_1, 1) + C(s_2, 2) + ... + C(s_k, k)
// which is a bijection onto 0..C(n, k)-1 (combinatorial number system).  It
// needs one table look-up per piece.  Sets drawn from a sparse subset of the
// board are first compressed to consecutive bits with pext (BMI2), which
// keeps the rank gapless; unranking expands them back with pdep.
//
// Men (rank_men).  White men may stand on squares 0..27, black men on 4..31.
// Row 0 (squares 0..3) is White's alone, row 7 (28..31) Black's alone, and
// both share the 24 middle squares 4..27.  How many squares black men can
// use depends on how many middle squares white men take, so the men
// configurations are split into groups by a = number of white men on row 0
// (0..min(wm, 4)).  With w = wm - a white men in the middle:
//     group size  G(a) = C(4, a) * C(24, w) * C(28 - w, bm)
//     rank_men    = offset(a)                         (sum of G(a') for a' < a)
//                 + (colex(white men on row 0, as 4 bits)   * C(24, w)
//                 +  colex(white men on 4..27, as 24 bits)) * C(28 - w, bm)
//                 +  colex(pext(black men, squares 4..31 not holding a white man))
// and men_configs() = sum of G(a).  Every term is a bijection onto its range,
// so the whole is gapless.
//
// Kings (rank_kings).  With F = the 32 - men free squares:
//     rank_kings = colex(pext(white kings, F)) * C(32 - men - wk, bk)
//                + colex(pext(black kings, F minus the white kings))
// and kings_per_slice() = C(32 - men, wk) * C(32 - men - wk, bk).
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cstdint>

#if defined(__BMI2__) || defined(__AVX512F__) || defined(__x86_64__)
#include <immintrin.h>
#endif

#include "damka/material.hpp"
#include "damka/position.hpp"

namespace damka {

namespace index_detail {

struct Binomials {
  std::uint64_t c[33][33] = {};  // c[n][k] = C(n, k), 0 when k > n
  constexpr Binomials() {
    for (int n = 0; n <= 32; ++n) {
      c[n][0] = 1;
      for (int k = 1; k <= n; ++k) c[n][k] = c[n - 1][k - 1] + (k <= n - 1 ? c[n - 1][k] : 0);
    }
  }
};
inline constexpr Binomials kBinomials{};

constexpr std::uint64_t binom(int n, int k) {
  return (n < 0 || k < 0 || k > n) ? 0 : kBinomials.c[n][k];
}

// A portable build (no -mbmi2) on x86-64 still uses BMI2's pext/pdep when
// the CPU has them, chosen at run time (a predictable branch and a call);
// elsewhere, loops over the few pieces in x rather than the mask's squares.
#if !defined(__BMI2__) && defined(__x86_64__) && defined(__GNUC__)
#define DAMKA_BMI2_AT_RUN_TIME 1
[[gnu::target("bmi2")]] inline std::uint32_t pext_bmi2(std::uint32_t x, std::uint32_t mask) {
  return _pext_u32(x, mask);
}
[[gnu::target("bmi2")]] inline std::uint32_t pdep_bmi2(std::uint32_t x, std::uint32_t mask) {
  return _pdep_u32(x, mask);
}
// False until initialised (static initialisers running earlier get the
// portable loops: same answers).
inline const bool kCpuHasBmi2 = (__builtin_cpu_init(), __builtin_cpu_supports("bmi2") != 0);
#endif

inline std::uint32_t pext_portable(std::uint32_t x, std::uint32_t mask) {
  std::uint32_t r = 0;
  for (x &= mask; x; x &= x - 1) r |= 1u << popcount(mask & ((x & (0u - x)) - 1));
  return r;
}

inline std::uint32_t pdep_portable(std::uint32_t x, std::uint32_t mask) {
  std::uint32_t r = 0;
  for (int skipped = 0; x; x &= x - 1) {
    for (const int k = std::countr_zero(x); skipped < k; ++skipped) mask &= mask - 1;  // drop k lowest squares
    r |= mask & (0u - mask);
  }
  return r;
}

inline std::uint32_t pext(std::uint32_t x, std::uint32_t mask) {
#if defined(__BMI2__)
  return _pext_u32(x, mask);
#else
#if defined(DAMKA_BMI2_AT_RUN_TIME)
  if (kCpuHasBmi2) return pext_bmi2(x, mask);
#endif
  return pext_portable(x, mask);
#endif
}

inline std::uint32_t pdep(std::uint32_t x, std::uint32_t mask) {
#if defined(__BMI2__)
  return _pdep_u32(x, mask);
#else
#if defined(DAMKA_BMI2_AT_RUN_TIME)
  if (kCpuHasBmi2) return pdep_bmi2(x, mask);
#endif
  return pdep_portable(x, mask);
#endif
}

// Colex rank of the set bits of b (see the top of this file).  The lowest
// bit's term, C(square, 1), is the square itself: no table read (a set of
// one piece, the most common, costs a bit scan).
inline std::uint64_t colex_rank(std::uint32_t b) {
  if (b == 0) return 0;
  std::uint64_t r = static_cast<std::uint64_t>(std::countr_zero(b));
  b &= b - 1;
  for (int i = 2; b != 0; ++i, b &= b - 1) r += kBinomials.c[std::countr_zero(b)][i];
  return r;
}
static_assert(kBinomials.c[31][1] == 31);

// C(c, i) stored by i, then c, for the unranking search below.  Every
// C(c, i) with c < 32 is below C(31, 15) < 2^32, and so is every colex rank
// (below C(32, 16) < 2^32), so 32-bit entries suffice.
struct BinomialsByK {
  alignas(64) std::uint32_t c[33][32] = {};  // c[i][c] = C(c, i)
  constexpr BinomialsByK() {
    for (int i = 0; i <= 32; ++i)
      for (int n = 0; n < 32; ++n) c[i][n] = static_cast<std::uint32_t>(kBinomials.c[n][i]);
  }
};
inline constexpr BinomialsByK kBinomialsByK{};

// The k-element subset of bits 0..n-1 whose colex rank is r (r < C(n, k)).
// Greedy from the top element down: s_i is the largest c with C(c, i) <= r.
// Since C(c, i) grows with c and C(c, i) > r for every c >= n, s_i + 1 is
// simply the number of c in 0..31 with C(c, i) <= r: a branch-free count
// over one row of 32 entries that the compiler turns into vector compares.
inline std::uint32_t colex_unrank(std::uint64_t rank, int k, [[maybe_unused]] int n) {
  assert(rank < (std::uint64_t{1} << 32));
  auto r = static_cast<std::uint32_t>(rank);
  std::uint32_t b = 0;
  for (int i = k; i >= 1; --i) {
    const std::uint32_t* row = kBinomialsByK.c[i];
#if defined(__AVX512F__)
    const __m512i rv = _mm512_set1_epi32(static_cast<int>(r));
    const unsigned lo = _mm512_cmple_epu32_mask(_mm512_load_si512(row), rv);
    const unsigned hi = _mm512_cmple_epu32_mask(_mm512_load_si512(row + 16), rv);
    const int count = std::popcount(lo | (hi << 16));
#else
    int count = 0;
    for (int c = 0; c < 32; ++c) count += row[c] <= r;
#endif
    const int s = count - 1;
    assert(s >= i - 1 && s < n);
    b |= std::uint32_t{1} << s;
    r -= row[s];
  }
  return b;
}

// The next larger number with as many set bits (x != 0): the next set in
// colex order (Gosper's hack).
constexpr std::uint64_t next_colex(std::uint64_t x) {
  const std::uint64_t low = x & (0 - x), up = x + low;
  return up | (((up ^ x) >> 2) / low);
}

// Calls f(set) for every k-element subset of bits 0..n-1 (n <= 32) in colex
// order, that is in increasing numeric order (next_colex): set number r is
// colex_unrank(r, k, n).  None when k > n; the empty set once when k = 0.
template <class F>
void for_each_colex(int k, int n, F&& f) {
  if (k < 0 || k > n) return;
  const std::uint64_t end = std::uint64_t{1} << n;
  std::uint64_t x = (std::uint64_t{1} << k) - 1;
  if (k == 0) {
    f(std::uint32_t{0});
    return;
  }
  for (; x < end; x = next_colex(x)) f(static_cast<std::uint32_t>(x));
}

// Division by a divisor fixed at construction: one 64x64->128 multiply by
// M = floor((2^64 - 1) / d) and one correction step.  The estimate
// q' = floor(n * M / 2^64) satisfies n/d - 1 < q' <= n/d, so q' is the
// quotient or one less.
struct Divider {
  std::uint64_t d = 1, m = ~std::uint64_t{0};
  Divider() = default;
  explicit Divider(std::uint64_t divisor) : d(divisor), m(~std::uint64_t{0} / divisor) {}
  // q = n / d, returns n % d.
  std::uint64_t divmod(std::uint64_t n, std::uint64_t& q) const {
    q = static_cast<std::uint64_t>((static_cast<unsigned __int128>(n) * m) >> 64);
    std::uint64_t r = n - q * d;
    if (r >= d) {
      ++q;
      r -= d;
    }
    return r;
  }
};

constexpr Bitboard kRow0 = 0x0000000Fu;
constexpr Bitboard kBlackMenSquares = 0xFFFFFFF0u;  // rows 1..7

}  // namespace index_detail

// Materials up to this many pieces have sizes below 2^56; larger ones could
// overflow 64 bits and are not supported.
inline constexpr int kMaxIndexPieces = 16;

class MaterialIndex {
 public:
  // m must be valid (Material::is_valid()) with at most kMaxIndexPieces
  // pieces; canonical or not.
  explicit MaterialIndex(Material m);

  const Material& material() const { return m_; }
  // Placements = men_configs() * kings_per_slice().
  std::uint64_t size() const { return men_configs_ * kings_per_slice_; }
  // Number of (white men, black men) configurations.
  std::uint64_t men_configs() const { return men_configs_; }
  // C(32 - men, wk) * C(32 - men - wk, bk).
  std::uint64_t kings_per_slice() const { return kings_per_slice_; }

  // p has exactly this material and is valid; the side to move is ignored.
  std::uint64_t rank(const Position& p) const {
    assert(material_of(p) == m_);
    return rank_men(p.men[0], p.men[1]) * kings_per_slice_ +
           rank_kings(p.kings[0], p.kings[1], p.men[0] | p.men[1]);
  }
  // i < size(); the result has White to move.
  Position unrank(std::uint64_t i) const {
    assert(i < size());
    Position p;
    std::uint64_t men = 0;
    const std::uint64_t kings = div_kings_per_slice_.divmod(i, men);
    unrank_men(men, p.men[0], p.men[1]);
    unrank_kings(kings, p.men[0] | p.men[1], p.kings[0], p.kings[1]);
    return p;
  }

  std::uint64_t rank_men(Bitboard white_men, Bitboard black_men) const {
    using namespace index_detail;
    const Bitboard low = white_men & kRow0;
    const Group& g = groups_[popcount(low)];
    const std::uint64_t white = colex_rank(low) * g.white_mid + colex_rank(white_men >> 4);
    return g.offset + white * g.black + colex_rank(pext(black_men, kBlackMenSquares & ~white_men));
  }
  void unrank_men(std::uint64_t i, Bitboard& white_men, Bitboard& black_men) const {
    using namespace index_detail;
    assert(i < men_configs_);
    int a = 0;
    while (a + 1 < num_groups_ && groups_[a + 1].offset <= i) ++a;
    const Group& g = groups_[a];
    std::uint64_t white = 0, low = 0;
    const std::uint64_t black = g.div_black.divmod(i - g.offset, white);
    const std::uint64_t middle = g.div_white_mid.divmod(white, low);
    const int mid = m_.wm - a;
    white_men = colex_unrank(low, a, 4) | (colex_unrank(middle, mid, 24) << 4);
    black_men = pdep(colex_unrank(black, m_.bm, 28 - mid), kBlackMenSquares & ~white_men);
  }

  // Calls f(c, white_men, black_men) for every men configuration c in rank
  // order, c = 0, 1, ..., men_configs() - 1: what unrank_men(c) gives, without
  // its divisions and searches (the colex order of k-element sets is the
  // numeric order of their bitmasks, stepped by Gosper's hack).  Cost: a few
  // operations per configuration.  Thread-safe (const).
  template <class F>
  void for_each_men_config(F&& f) const {
    using namespace index_detail;
    std::uint64_t c = 0;
    for (int a = 0; a < num_groups_; ++a) {
      const int mid = m_.wm - a;
      for_each_colex(a, 4, [&](std::uint32_t low) {
        for_each_colex(mid, 24, [&](std::uint32_t middle) {
          const Bitboard white = low | (middle << 4);
          const Bitboard free = kBlackMenSquares & ~white;
          for_each_colex(m_.bm, 28 - mid, [&](std::uint32_t black) { f(c++, white, pdep(black, free)); });
        });
      });
    }
    assert(c == men_configs_);
  }

  std::uint64_t rank_kings(Bitboard white_kings, Bitboard black_kings, Bitboard men_occupied) const {
    using namespace index_detail;
    const Bitboard free = ~men_occupied;
    return colex_rank(pext(white_kings, free)) * black_king_sets_ +
           colex_rank(pext(black_kings, free & ~white_kings));
  }
  // rank_kings of the placements that put one more king of a colour on a
  // square given later, the other kings fixed: for ranking one king's
  // moves.  `white`: that colour is White (its other kings `rest`, Black's
  // `fixed`), else Black (White's kings `fixed`).  Found once here (a few
  // look-ups per king), each placement then costs three popcounts and
  // three look-ups, against rank_kings' two pext and a look-up per king.
  class OneKingMore {
   public:
    OneKingMore(const MaterialIndex& idx, bool white, Bitboard rest, Bitboard fixed, Bitboard men_occupied) {
      using index_detail::kBinomials;
      const Bitboard free = ~men_occupied;
      // The moving colour's squares are counted among `domain_`; one of its
      // kings on t is preceded there by j = popcount(rest below t) others,
      // the rest's i-th (from 1) then being the (i + 1)-th past t.
      domain_ = white ? free : free & ~fixed;
      rest_ = rest;
      assert(popcount(rest) < kMaxKings && popcount(fixed) <= kMaxKings);
      int i = 1;
      std::array<std::uint64_t, kMaxKings + 1> before, after;  // C(c_i, i), C(c_i, i + 1)
      for (Bitboard b = rest; b; b &= b - 1, ++i) {
        const int c = popcount(domain_ & (lowest(b) - 1));
        before[i] = kBinomials.c[c][i];
        after[i] = kBinomials.c[c][i + 1];
      }
      // more_[j]: the rest's first j terms before t, the others after it.
      const int m = i - 1;
      std::uint64_t a = 0;
      for (int k = 1; k <= m; ++k) a += after[k];
      more_[0] = a;
      for (int j = 1; j <= m; ++j) more_[j] = a += before[j] - after[j];  // unsigned: the sum is exact
      if (white) {  // Black's kings, counted among the free squares less White's: one fewer past t
        scale_ = idx.black_king_sets_;
        fixed_ = fixed;
        const Bitboard d = free & ~rest;
        int n = 0;
        std::array<int, kMaxKings + 1> e;  // Black's kings' places among d
        for (Bitboard b = fixed; b; b &= b - 1) e[++n] = popcount(d & (lowest(b) - 1));
        // other_[q]: Black's first q kings below t, the others past it.
        std::uint64_t v = 0;
        for (int k = 1; k <= n; ++k) v += kBinomials.c[std::max(e[k] - 1, 0)][k];
        other_[0] = v;
        for (int q = 1; q <= n; ++q) other_[q] = v += kBinomials.c[e[q]][q] - kBinomials.c[std::max(e[q] - 1, 0)][q];
      } else {  // White's kings fixed: a constant term
        scale_ = 1;
        fixed_ = 0;
        other_[0] = index_detail::colex_rank(index_detail::pext(fixed, free)) * idx.black_king_sets_;
      }
    }
    // rank_kings with the king on `to` (free, not in rest or fixed).
    std::uint64_t rank(int to) const {
      const Bitboard below = (Bitboard{1} << to) - 1;
      const int j = popcount(rest_ & below);
      return (more_[j] + index_detail::kBinomials.c[popcount(domain_ & below)][j + 1]) * scale_ +
             other_[popcount(fixed_ & below)];
    }

   private:
    static Bitboard lowest(Bitboard b) { return b & (0u - b); }
    Bitboard domain_ = 0, rest_ = 0, fixed_ = 0;
    std::uint64_t scale_ = 1;
    static constexpr int kMaxKings = 16;  // of a colour
    std::array<std::uint64_t, kMaxKings + 1> more_, other_;  // by j, by q
  };

  // The kings of kings rank i (rank_kings' inverse) among the free squares.
  void unrank_kings(std::uint64_t i, Bitboard men_occupied, Bitboard& white_kings, Bitboard& black_kings) const {
    LastWhiteKings none;  // nothing kept: White's kings unranked
    unrank_kings(i, men_occupied, white_kings, black_kings, none);
  }
  // unrank_kings for a caller that visits ranks in increasing order, often
  // close together (Black's kings vary fastest: C(free, Black's kings)
  // successive ranks share White's): White's kings are unranked again only
  // where their rank or the men changed since the last call with `last`.
  // Cost: unrank_kings' less White's unrank where it is kept (4 of 6 rows
  // in 4Kv2K).  `last` starts default-constructed; one per thread.
  struct LastWhiteKings {
    std::uint64_t rank = ~std::uint64_t{0};
    Bitboard men = 0, kings = 0;
  };
  void unrank_kings(std::uint64_t i, Bitboard men_occupied, Bitboard& white_kings, Bitboard& black_kings,
                    LastWhiteKings& last) const {
    using namespace index_detail;
    assert(i < kings_per_slice_);
    const Bitboard free = ~men_occupied;
    const int nfree = kNumSquares - m_.men();
    std::uint64_t white = 0;
    const std::uint64_t black = div_black_king_sets_.divmod(i, white);
    if (white != last.rank || men_occupied != last.men) {
      last.rank = white;
      last.men = men_occupied;
      last.kings = pdep(colex_unrank(white, m_.wk, nfree), free);
    }
    white_kings = last.kings;
    black_kings = pdep(colex_unrank(black, m_.bk, nfree - m_.wk), free & ~white_kings);
  }

 private:
  struct Group {
    std::uint64_t offset = 0;     // first men rank of the group
    std::uint64_t white_mid = 1;  // C(24, w): white middle sets
    std::uint64_t black = 1;      // C(28 - w, bm): black men sets
    index_detail::Divider div_white_mid, div_black;
  };
  Material m_;
  std::array<Group, 5> groups_{};  // by a = white men on row 0
  int num_groups_ = 1;
  std::uint64_t men_configs_ = 0;
  std::uint64_t kings_per_slice_ = 0;
  std::uint64_t black_king_sets_ = 1;  // C(32 - men - wk, bk)
  index_detail::Divider div_kings_per_slice_, div_black_king_sets_;
};

}  // namespace damka
