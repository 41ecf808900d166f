// The perfect index: exhaustive checks up to 4 pieces, published placement
// counts up to 8, random round trips for 5..8 pieces.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <vector>

#include "damka/index.hpp"

namespace damka {
namespace {

constexpr Bitboard kWhiteMenSquares = 0x0FFFFFFFu;
constexpr Bitboard kBlackMenSquares = 0xFFFFFFF0u;

// Calls f(set) for every k-subset of the squares in `allowed`.
void for_each_subset(Bitboard allowed, int k, Bitboard chosen, const std::function<void(Bitboard)>& f) {
  if (k == 0) return f(chosen);
  for (Bitboard rest = allowed; rest; rest &= rest - 1) {
    const Bitboard s = rest & (0u - rest);
    for_each_subset(rest & ~s, k - 1, chosen | s, f);
  }
}

// Every legal placement of m, by brute force.
void for_each_placement(const Material& m, const std::function<void(const Position&)>& f) {
  for_each_subset(kWhiteMenSquares, m.wm, 0, [&](Bitboard wm) {
    for_each_subset(kBlackMenSquares & ~wm, m.bm, 0, [&](Bitboard bm) {
      for_each_subset(~(wm | bm), m.wk, 0, [&](Bitboard wk) {
        for_each_subset(~(wm | bm | wk), m.bk, 0, [&](Bitboard bk) {
          Position p;
          p.men[0] = wm;
          p.men[1] = bm;
          p.kings[0] = wk;
          p.kings[1] = bk;
          f(p);
        });
      });
    });
  });
}

TEST(Index, ColexRankIsABijection) {
  for (int n = 0; n <= 10; ++n)
    for (int k = 0; k <= n; ++k) {
      std::vector<bool> seen(index_detail::binom(n, k));
      for_each_subset((1u << n) - 1, k, 0, [&](Bitboard b) {
        const std::uint64_t r = index_detail::colex_rank(b);
        ASSERT_LT(r, seen.size());
        ASSERT_FALSE(seen[r]);
        seen[r] = true;
        ASSERT_EQ(index_detail::colex_unrank(r, k, n), b);
      });
    }
}

// Brute force: every placement ranks into 0..size-1, all distinct, and there
// are exactly size() of them; unrank inverts rank.
TEST(Index, ExhaustiveUpTo4PiecesByEnumeration) {
  for (int n = 1; n <= 4; ++n)
    for (const Material& m : materials_with(n, false)) {
      const MaterialIndex idx(m);
      std::vector<bool> seen(idx.size());
      std::uint64_t count = 0;
      for_each_placement(m, [&](const Position& p) {
        const std::uint64_t i = idx.rank(p);
        ASSERT_LT(i, idx.size()) << m.name();
        ASSERT_FALSE(seen[i]) << m.name() << " rank " << i << " twice";
        seen[i] = true;
        ++count;
      });
      EXPECT_EQ(count, idx.size()) << m.name();
    }
}

// Every index of every material up to 4 pieces: unrank gives a legal
// placement of the material, and rank gives the index back.
TEST(Index, ExhaustiveRoundTripUpTo4Pieces) {
  for (int n = 1; n <= 4; ++n)
    for (const Material& m : materials_with(n, false)) {
      const MaterialIndex idx(m);
      ASSERT_EQ(idx.size(), idx.men_configs() * idx.kings_per_slice());
      for (std::uint64_t i = 0; i < idx.size(); ++i) {
        const Position p = idx.unrank(i);
        ASSERT_TRUE(p.is_valid()) << m.name() << " " << i;
        ASSERT_EQ(material_of(p), m) << i;
        ASSERT_EQ(p.side_to_move, Color::White);
        ASSERT_EQ(idx.rank(p), i) << m.name();
        // The slice-major split.
        ASSERT_EQ(idx.rank_men(p.men[0], p.men[1]), i / idx.kings_per_slice());
        ASSERT_EQ(idx.rank_kings(p.kings[0], p.kings[1], p.men[0] | p.men[1]), i % idx.kings_per_slice());
      }
    }
}

// Placements of n pieces on the 32 squares, summed over every material
// (one side may be empty, no side to move): the published counts for checkers.
TEST(Index, PublishedPlacementCounts) {
  const std::uint64_t expected[] = {120,         6972,          261224,         7092774,
                                    148688232,   2503611964,    34779531480,    406309208481};
  for (int n = 1; n <= 8; ++n) {
    std::uint64_t total = 0;
    for (const Material& m : materials_with(n, false)) total += MaterialIndex(m).size();
    EXPECT_EQ(total, expected[n - 1]) << n << " pieces";
  }
}

Material material_with(int pieces) {
  const auto all = materials_with(pieces, false);
  return all[*rc::gen::inRange<std::size_t>(0, all.size())];
}

RC_GTEST_PROP(Index, RandomIndexRoundTrip5To8Pieces, ()) {
  const Material m = material_with(*rc::gen::inRange(5, 9));
  const MaterialIndex idx(m);
  const auto ids = *rc::gen::container<std::vector<std::uint64_t>>(50, rc::gen::inRange<std::uint64_t>(0, idx.size()));
  for (const std::uint64_t i : ids) {
    const Position p = idx.unrank(i);
    RC_ASSERT(p.is_valid());
    RC_ASSERT(material_of(p) == m);
    RC_ASSERT(idx.rank(p) == i);
  }
}

// A random legal placement of m, built square by square.
Position random_placement(const Material& m) {
  Position p;
  Bitboard used = 0;
  const auto place = [&](Bitboard allowed, int count, Bitboard& out) {
    for (int k = 0; k < count; ++k) {
      const Bitboard free = allowed & ~used;
      const int j = *rc::gen::inRange(0, popcount(free));
      const Bitboard s = index_detail::pdep(1u << j, free);
      out |= s;
      used |= s;
    }
  };
  place(kWhiteMenSquares, m.wm, p.men[0]);
  place(kBlackMenSquares, m.bm, p.men[1]);
  place(~0u, m.wk, p.kings[0]);
  place(~0u, m.bk, p.kings[1]);
  return p;
}

RC_GTEST_PROP(Index, RandomPlacementRoundTrip5To8Pieces, ()) {
  const Material m = material_with(*rc::gen::inRange(5, 9));
  const MaterialIndex idx(m);
  for (int k = 0; k < 20; ++k) {
    const Position p = random_placement(m);
    const std::uint64_t i = idx.rank(p);
    RC_ASSERT(i < idx.size());
    RC_ASSERT(idx.unrank(i) == p);
  }
}

// Men configurations: neighbouring ranks are distinct and the groups split
// exactly where the count of white men on row 0 changes.
TEST(Index, MenConfigsMatchBruteForce) {
  for (const Material m : {Material{3, 0, 2, 0}, Material{4, 1, 0, 0}, Material{0, 0, 5, 1}, Material{5, 0, 1, 0}}) {
    const MaterialIndex idx(m);
    std::uint64_t count = 0;
    for_each_subset(kWhiteMenSquares, m.wm, 0, [&](Bitboard wm) {
      for_each_subset(kBlackMenSquares & ~wm, m.bm, 0, [&](Bitboard) { ++count; });
    });
    EXPECT_EQ(idx.men_configs(), count) << m.name();
    for (std::uint64_t i = 0; i < idx.men_configs(); ++i) {
      Bitboard w = 0, b = 0;
      idx.unrank_men(i, w, b);
      ASSERT_EQ(idx.rank_men(w, b), i);
    }
  }
}

// for_each_men_config walks the configurations in rank order: the c-th
// call is unrank_men(c), and there are men_configs() calls.
TEST(Index, ForEachMenConfigIsUnrankInOrder) {
  for (const Material m : {Material{0, 1, 0, 1}, Material{3, 0, 2, 0}, Material{4, 1, 0, 0}, Material{0, 0, 5, 1},
                           Material{5, 0, 1, 0}, Material{1, 2, 1, 1}, Material{3, 0, 3, 0}, Material{0, 2, 0, 2},
                           Material{6, 0, 0, 1}, Material{2, 1, 4, 0}}) {
    const MaterialIndex idx(m);
    std::uint64_t next = 0;
    bool same = true;
    idx.for_each_men_config([&](std::uint64_t c, Bitboard w, Bitboard b) {
      Bitboard uw = 0, ub = 0;
      idx.unrank_men(next, uw, ub);
      same = same && c == next && w == uw && b == ub;
      ++next;
    });
    EXPECT_TRUE(same) << m.name();
    EXPECT_EQ(next, idx.men_configs()) << m.name();
  }
}

// unrank_kings with LastWhiteKings gives unrank_kings' kings for ranks
// visited in increasing order with gaps of every size (White's kept, or
// unranked again), across a change of the men, and back to rank 0.
TEST(Index, UnrankKingsKeepingWhitesAsUnrankKings) {
  std::uint64_t checked = 0;
  for (const char* name : {"1Kv1K", "4Kv2K", "2Kv3K", "3K1Mv2K", "1K2Mv1K1M"}) {
    const Material m = *Material::parse(name);
    const MaterialIndex idx(m);
    MaterialIndex::LastWhiteKings last;
    for (std::uint64_t men = 0; men < idx.men_configs(); men += 1 + idx.men_configs() / 3) {
      const Position start = idx.unrank(men * idx.kings_per_slice());
      const Bitboard occupied_men = start.men[0] | start.men[1];
      for (std::uint64_t k = 0, gap = 1; k < idx.kings_per_slice(); k += gap, gap = gap * 7 % 1000 + 1) {
        Bitboard w = 0, b = 0, wk = 0, bk = 0;
        idx.unrank_kings(k, occupied_men, w, b);
        idx.unrank_kings(k, occupied_men, wk, bk, last);
        ASSERT_EQ(wk, w) << name << " kings rank " << k;
        ASSERT_EQ(bk, b) << name << " kings rank " << k;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000u);
}

// OneKingMore: the rank of every placement of one more king, either colour,
// the other kings fixed, is rank_kings' (every placement of the kings of
// materials with kings on both sides, a man or none, up to 6 pieces; every
// king of each placement taken away in turn and put on each free square).
TEST(Index, OneKingMoreRanksAsRankKings) {
  std::uint64_t checked = 0;
  for (const char* name : {"1Kv1K", "2Kv1K", "1Kv2K", "3Kv1K", "2Kv2K", "1K1Mv1K", "2K1Mv2K", "1Kv1K1M", "3Kv2K",
                           "2K1Mv1K1M", "4Kv1K", "1Kv4K", "2K2Mv1K1M"}) {
    const Material m = *Material::parse(name);
    const MaterialIndex idx(m);
    // Every slice's kings over a few men configurations.
    for (std::uint64_t men = 0; men < idx.men_configs(); men += 1 + idx.men_configs() / 7) {
      for (std::uint64_t k = 0; k < idx.kings_per_slice(); ++k) {
        const Position p = idx.unrank(men * idx.kings_per_slice() + k);
        const Bitboard occupied_men = p.men[0] | p.men[1];
        for (int c = 0; c < 2; ++c)
          for (Bitboard b = p.kings[c]; b; b &= b - 1) {
            const Bitboard rest = p.kings[c] & ~(b & (0u - b));
            const Bitboard fixed = p.kings[1 - c];
            const MaterialIndex::OneKingMore more(idx, c == 0, rest, fixed, occupied_men);
            for (int to = 0; to < 32; ++to) {
              const Bitboard t = Bitboard{1} << to;
              if ((occupied_men | rest | fixed) & t) continue;
              const std::uint64_t want = c == 0 ? idx.rank_kings(rest | t, fixed, occupied_men)
                                                : idx.rank_kings(fixed, rest | t, occupied_men);
              ASSERT_EQ(more.rank(to), want) << name << " colour " << c << " to " << to;
              ++checked;
            }
          }
      }
    }
  }
  EXPECT_GT(checked, 1000000u);
}

// A man moved from a to t leaves rank_kings as it was exactly when no king
// stands on a square numbered strictly between a and t (every king keeps
// its place among the free squares): the generator's quiet man steps rank
// no kings then (UnitSolver::ManSteps::Step::between).  Every man of
// placements of materials with men and kings, to every empty square.
TEST(Index, RankKingsKeptByAManMoveWithNoKingBetween) {
  std::uint64_t kept = 0, changed = 0;
  for (const char* name : {"1K1Mv1K", "1Kv1K1M", "2K1Mv1K", "1K2Mv1K1M", "2K1Mv2K", "1K1Mv2K1M"}) {
    const Material m = *Material::parse(name);
    const MaterialIndex idx(m);
    for (std::uint64_t i = 0; i < idx.size(); i += 1 + idx.size() / 4000) {
      const Position p = idx.unrank(i);
      const Bitboard men = p.men[0] | p.men[1], kings = p.kings[0] | p.kings[1];
      const std::uint64_t before = idx.rank_kings(p.kings[0], p.kings[1], men);
      for (Bitboard b = men; b; b &= b - 1) {
        const int a = std::countr_zero(b);
        for (int t = 0; t < 32; ++t) {
          const Bitboard to = Bitboard{1} << t;
          if ((men | kings) & to) continue;
          const int lo = std::min(a, t), hi = std::max(a, t);
          const Bitboard between = ((Bitboard{1} << hi) - 1) & ~((Bitboard{2} << lo) - 1);
          const std::uint64_t after = idx.rank_kings(p.kings[0], p.kings[1], (men & ~(b & (0u - b))) | to);
          if ((kings & between) == 0) {
            ASSERT_EQ(after, before) << name << " slot " << i << " man " << a << " to " << t;
            ++kept;
          } else {
            ASSERT_NE(after, before) << name << " slot " << i << " man " << a << " to " << t;
            ++changed;
          }
        }
      }
    }
  }
  EXPECT_GT(kept, 100000u);
  EXPECT_GT(changed, 100000u);
}

}  // namespace
}  // namespace damka

// pext/pdep (as this build and CPU choose them) and the portable loops against
// a square-by-square reference.
TEST(IndexDetail, PextPdepMatchAReference) {
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 200000; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    const std::uint32_t x = static_cast<std::uint32_t>(s), mask = static_cast<std::uint32_t>(s >> 32) & (i & 1 ? ~0u : 0x0F0F33F0u);
    std::uint32_t ext = 0, dep = 0;
    for (int b = 0, k = 0; b < 32; ++b) {
      if (!(mask >> b & 1)) continue;
      if (x >> b & 1) ext |= 1u << k;
      if (x >> k & 1) dep |= 1u << b;
      ++k;
    }
    ASSERT_EQ(damka::index_detail::pext(x, mask), ext) << x << " " << mask;
    ASSERT_EQ(damka::index_detail::pdep(x, mask), dep) << x << " " << mask;
    ASSERT_EQ(damka::index_detail::pext_portable(x, mask), ext) << x << " " << mask;
    ASSERT_EQ(damka::index_detail::pdep_portable(x, mask), dep) << x << " " << mask;
  }
}
