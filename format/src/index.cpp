// Per-material tables of the perfect index (formulas in index.hpp).
#include "damka/index.hpp"

namespace damka {

MaterialIndex::MaterialIndex(Material m) : m_(m) {
  using index_detail::binom;
  assert(m.is_valid() && m.pieces() <= kMaxIndexPieces);
  num_groups_ = (m.wm < 4 ? m.wm : 4) + 1;
  std::uint64_t offset = 0;
  for (int a = 0; a < num_groups_; ++a) {
    const int w = m.wm - a;
    Group& g = groups_[a];
    g.offset = offset;
    g.white_mid = binom(24, w);
    g.black = binom(28 - w, m.bm);
    offset += binom(4, a) * g.white_mid * g.black;
    // Empty groups (w > 24) still need non-zero divisors; unrank never lands there.
    if (g.white_mid == 0) g.white_mid = 1;
    if (g.black == 0) g.black = 1;
    g.div_white_mid = index_detail::Divider(g.white_mid);
    g.div_black = index_detail::Divider(g.black);
  }
  men_configs_ = offset;
  const int nfree = kNumSquares - m.men();
  black_king_sets_ = binom(nfree - m.wk, m.bk);
  kings_per_slice_ = binom(nfree, m.wk) * black_king_sets_;
  div_black_king_sets_ = index_detail::Divider(black_king_sets_);
  div_kings_per_slice_ = index_detail::Divider(kings_per_slice_ ? kings_per_slice_ : 1);
}

}  // namespace damka
