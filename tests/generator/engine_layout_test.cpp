// The pass engine's private layout (generator/src/engine_layout.hpp): the
// levels of a material's men configurations, and the units of a level made
// by any number of threads.
#include <gtest/gtest.h>

#include "damka/index.hpp"
#include "engine_layout.hpp"

namespace damka::engine_detail {
namespace {

// Every configuration sits in the level of its progress, at its position,
// each level in rank order; checked against unrank_men one by one.
TEST(EngineLayout, LevelsHoldEveryConfigurationByProgress) {
  for (const Material m : {Material{3, 0, 2, 0}, Material{2, 1, 2, 0}, Material{0, 2, 0, 1}, Material{2, 0, 2, 0},
                           Material{1, 1, 4, 0}}) {
    const Layout L(m);
    const MaterialIndex idx(m);
    std::uint64_t listed = 0;
    for (const auto& level : L.levels) {
      listed += level.size();
      for (std::size_t i = 1; i < level.size(); ++i) ASSERT_LT(level[i - 1], level[i]) << m.name();
    }
    ASSERT_EQ(listed, idx.men_configs()) << m.name();
    for (std::uint64_t c = 0; c < idx.men_configs(); ++c) {
      Bitboard w = 0, b = 0;
      idx.unrank_men(c, w, b);
      const int p = progress_of(w, b);
      ASSERT_EQ(L.level_of[c], p) << m.name() << " configuration " << c;
      ASSERT_EQ(L.levels[p][L.pos[c]], c) << m.name() << " configuration " << c;
    }
  }
}

bool same_unit(const Unit& a, const Unit& b) {
  if (a.parts != b.parts) return false;
  for (int k = 0; k < a.parts; ++k)
    if (a.side[k] != b.side[k] || a.wm[k] != b.wm[k] || a.bm[k] != b.bm[k] || a.offset[k] != b.offset[k])
      return false;
  return true;
}

// Levels of more than 4096 configurations are made in parallel: the same
// units in the same order for 1, 2 and 3 threads, for a symmetric material
// (pairs made once) and another; and every slot of the level in one unit.
TEST(EngineLayout, UnitsOfALevelDoNotDependOnThreads) {
  for (const Material m : {Material{3, 0, 3, 0}, Material{3, 0, 2, 0}}) {
    const Layout L(m);
    bool large = false;
    for (int p = 0; p < static_cast<int>(L.levels.size()); ++p) {
      if (L.levels[p].empty()) continue;
      large = large || L.levels[p].size() >= 4096;
      const std::vector<Unit> one = units_of_level(L, p, 1);
      std::uint64_t slots = 0;
      for (const Unit& u : one) slots += static_cast<std::uint64_t>(u.parts) * L.K;
      EXPECT_EQ(slots, L.level_slots(p)) << m.name() << " level " << p;
      for (int threads : {2, 3}) {
        const std::vector<Unit> many = units_of_level(L, p, threads);
        ASSERT_EQ(many.size(), one.size()) << m.name() << " level " << p << ", " << threads << " threads";
        for (std::size_t i = 0; i < one.size(); ++i)
          ASSERT_TRUE(same_unit(many[i], one[i])) << m.name() << " level " << p << " unit " << i;
      }
    }
    EXPECT_TRUE(large) << m.name() << ": no level large enough to be made in parallel";
  }
}

}  // namespace
}  // namespace damka::engine_detail
