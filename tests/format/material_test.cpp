// Material names, parsing, canonical choice and enumeration; the build
// order; the one dense number of a material.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "damka/material.hpp"
#include "damka/material_number.hpp"

namespace damka {
namespace {

// Every material of up to kMaxIndexPieces pieces has its own number, and
// the numbers fill [0, kMaterialNumbers).
TEST(Material, NumbersAreDenseAndDistinct) {
  std::set<int> seen;
  for (int wm = 0; wm <= kMaxIndexPieces; ++wm)
    for (int wk = 0; wm + wk <= kMaxIndexPieces; ++wk)
      for (int bm = 0; wm + wk + bm <= kMaxIndexPieces; ++bm)
        for (int bk = 0; wm + wk + bm + bk <= kMaxIndexPieces; ++bk) {
          const Material m{wm, wk, bm, bk};
          ASSERT_TRUE(has_material_number(m)) << m.name();
          const int n = material_number(m);
          ASSERT_GE(n, 0) << m.name();
          ASSERT_LT(n, kMaterialNumbers) << m.name();
          ASSERT_TRUE(seen.insert(n).second) << m.name() << " shares number " << n;
        }
  EXPECT_EQ(static_cast<int>(seen.size()), kMaterialNumbers);
  EXPECT_EQ(kMaterialNumbers, 4845);  // C(20, 4): four counts summing to at most 16
  EXPECT_FALSE(has_material_number(Material{9, 0, 8, 0}));
  EXPECT_FALSE(has_material_number(Material{-1, 1, 0, 1}));
}

// Build order: each material after everything it converts into; successors
// are one capture or promotion away, the closure everything reachable.
TEST(Material, BuildOrderComesAfterSuccessors) {
  const std::vector<Material> order = build_order(4);
  ASSERT_FALSE(order.empty());
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_TRUE(order[i].is_canonical());
    for (const Material& s : successors(order[i])) {
      const auto at = std::find(order.begin(), order.end(), s);
      ASSERT_NE(at, order.end()) << s.name();
      EXPECT_LT(at - order.begin(), static_cast<std::ptrdiff_t>(i)) << s.name() << " before " << order[i].name();
      EXPECT_TRUE(build_before(s, order[i]));
    }
  }
  // 1K1Mv1K: a promotion gives 2Kv1K, Black's capture of the king 1Mv1K
  // (canonical 1Kv1M), of the man 1Kv1K.
  const auto m = *Material::parse("1K1Mv1K");
  EXPECT_EQ(successors(m), (std::vector<Material>{*Material::parse("1Kv1K"), Material::parse("1Mv1K")->canonical(),
                                                  *Material::parse("2Kv1K")}));
  const std::vector<Material> closure = successors_closure(*Material::parse("1K1Mv1M"));
  for (const Material& s : successors(*Material::parse("1K1Mv1M")))
    EXPECT_NE(std::find(closure.begin(), closure.end(), s), closure.end()) << s.name();
  EXPECT_NE(std::find(closure.begin(), closure.end(), *Material::parse("1Kv1K")), closure.end());
}

TEST(Material, Names) {
  EXPECT_EQ((Material{0, 3, 0, 1}).name(), "3Kv1K");
  EXPECT_EQ((Material{1, 1, 2, 0}).name(), "1K1Mv2M");
  EXPECT_EQ((Material{0, 2, 0, 0}).name(), "2Kv0");
  EXPECT_EQ((Material{0, 0, 1, 0}).name(), "0v1M");
  EXPECT_EQ((Material{12, 0, 0, 10}).name(), "12Mv10K");
}

TEST(Material, Describe) {
  EXPECT_EQ((Material{0, 3, 0, 1}).describe(), "3 white kings vs 1 black king");
  EXPECT_EQ((Material{1, 1, 2, 0}).describe(), "1 white king and 1 white man vs 2 black men");
  EXPECT_EQ((Material{0, 2, 0, 0}).describe(), "2 white kings vs no black pieces");
}

TEST(Material, ParseAcceptsVariants) {
  EXPECT_EQ(*Material::parse("3Kv1K"), (Material{0, 3, 0, 1}));
  EXPECT_EQ(*Material::parse("3kv1k"), (Material{0, 3, 0, 1}));
  EXPECT_EQ(*Material::parse("1M1KV2M"), (Material{1, 1, 2, 0}));
  EXPECT_EQ(*Material::parse("2Kv0"), (Material{0, 2, 0, 0}));
}

TEST(Material, ParseRejectsGarbage) {
  for (const char* bad : {"", "v", "3K", "3Kv", "v1K", "3Kv1Kv1K", "0v0", "3Xv1K", "K3v1K", "0Kv1K", "3K3Kv1K",
                          "1K 1Mv1K", "-1Kv1K", "29Mv0", "20Kv20K", "999Kv1K", "3Kv1K!"}) {
    const auto m = Material::parse(bad);
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_NE(m.message().find('"' + std::string(bad) + '"'), std::string::npos) << m.message();
  }
}

TEST(Material, Canonical) {
  EXPECT_TRUE((Material{0, 3, 0, 1}).is_canonical());    // 3Kv1K
  EXPECT_FALSE((Material{0, 1, 0, 3}).is_canonical());   // 1Kv3K
  EXPECT_TRUE((Material{1, 1, 2, 0}).is_canonical());    // 1K1Mv2M: more kings
  EXPECT_FALSE((Material{2, 0, 1, 1}).is_canonical());
  EXPECT_TRUE((Material{2, 0, 0, 1}).is_canonical());    // 2Mv1K: more pieces
  EXPECT_TRUE((Material{1, 1, 1, 1}).is_symmetric());
  EXPECT_EQ((Material{0, 1, 0, 3}).canonical(), (Material{0, 3, 0, 1}));
}

RC_GTEST_PROP(Material, NameRoundTripAndCanonicalChoice, ()) {
  const Material m{*rc::gen::inRange(0, 9), *rc::gen::inRange(0, 9), *rc::gen::inRange(0, 9),
                   *rc::gen::inRange(0, 9)};
  RC_PRE(m.pieces() > 0);
  RC_ASSERT(Material::parse(m.name()).ok());
  RC_ASSERT(*Material::parse(m.name()) == m);
  RC_ASSERT(m.flipped().flipped() == m);
  // Exactly one of m and its flip is canonical, unless they are equal.
  RC_ASSERT(m.canonical() == m.flipped().canonical());
  RC_ASSERT(m.canonical().is_canonical());
  if (!m.is_symmetric()) RC_ASSERT(m.is_canonical() != m.flipped().is_canonical());
}

TEST(Material, MaterialsWith) {
  EXPECT_EQ(materials_with(1, false).size(), 4u);
  EXPECT_TRUE(materials_with(1, true).empty());
  for (int n = 1; n <= 8; ++n) {
    const auto all = materials_with(n, false);
    const auto both = materials_with(n, true);
    const std::set<Material> unique(all.begin(), all.end());
    EXPECT_EQ(unique.size(), all.size());
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
    // (wm, wk, bm, bk) summing to n: C(n + 3, 3); one side empty: 2 (n + 1).
    const std::size_t total = static_cast<std::size_t>((n + 3) * (n + 2) * (n + 1) / 6);
    EXPECT_EQ(all.size(), total);
    EXPECT_EQ(both.size(), total - 2 * static_cast<std::size_t>(n + 1));
    for (const Material& m : all) EXPECT_EQ(m.pieces(), n);
  }
}

TEST(Material, MaterialOf) {
  Position p;
  p.men[0] = 0x3;
  p.kings[0] = 0x100;
  p.kings[1] = 0xC0000000u;
  EXPECT_EQ(material_of(p), (Material{2, 1, 0, 2}));
}

}  // namespace
}  // namespace damka
