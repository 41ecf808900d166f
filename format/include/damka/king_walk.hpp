// A slice's king placements in rank order
// (MaterialIndex::rank_kings), one step at a time instead of an unrank per
// placement.  rank_kings = colex(white kings, free squares) * C(.., black)
// + colex(black kings, free squares less the white kings): the black kings'
// set moves fastest, and the colex order of k-element sets is the numeric
// order of their bit masks, so the next set is the next larger mask with
// as many bits (Gosper's hack), spread onto the free squares with pdep.
// Cost per step: a few bit operations and one or two pdep.
#pragma once

#include <bit>
#include <cassert>
#include <cstdint>

#include "damka/index.hpp"
#include "damka/position.hpp"

namespace damka {

class KingWalk {
 public:
  // The first placement (rank 0) of `white` and `black` kings on the
  // squares not in `men`.
  KingWalk(int white, int black, Bitboard men)
      : free_(~men), wn_(white), bn_(black), nfree_(kNumSquares - popcount(men)) {
    wc_ = (std::uint64_t{1} << wn_) - 1;
    bc_ = (std::uint64_t{1} << bn_) - 1;
    spread(true);
  }
  // Starts at a given placement (`white`, `black` kings on squares not in
  // `men`) instead of rank 0.
  KingWalk(Bitboard men, Bitboard white, Bitboard black)
      : free_(~men), wn_(popcount(white)), bn_(popcount(black)), nfree_(kNumSquares - popcount(men)) {
    using index_detail::pext;
    wc_ = pext(static_cast<std::uint32_t>(white), static_cast<std::uint32_t>(free_));
    bc_ = pext(static_cast<std::uint32_t>(black), static_cast<std::uint32_t>(free_ & ~white));
    wk_ = white;
    bk_ = black;
  }
  Bitboard white() const { return wk_; }
  Bitboard black() const { return bk_; }
  // The placement of the next rank; the caller stops at kings_per_slice().
  void next() {
    if (bn_ > 0) {
      bc_ = index_detail::next_colex(bc_);
      if (bc_ < (std::uint64_t{1} << (nfree_ - wn_))) {
        spread(false);
        return;
      }
      bc_ = (std::uint64_t{1} << bn_) - 1;
    }
    assert(wn_ > 0);
    wc_ = index_detail::next_colex(wc_);
    assert(wc_ < (std::uint64_t{1} << nfree_));
    spread(true);
  }

 private:
  void spread(bool white_moved) {
    using index_detail::pdep;
    if (white_moved) wk_ = pdep(static_cast<std::uint32_t>(wc_), free_);
    bk_ = pdep(static_cast<std::uint32_t>(bc_), free_ & ~wk_);
  }

  Bitboard free_;
  int wn_, bn_, nfree_;
  std::uint64_t wc_ = 0, bc_ = 0;  // compressed sets: bits of the free squares (white), of those left (black)
  Bitboard wk_ = 0, bk_ = 0;
};

}  // namespace damka
