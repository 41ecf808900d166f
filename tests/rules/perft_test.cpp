// Perft from the start positions against the figures published for each
// variant (the team's rules reference, which lists them with their sources).
#include <gtest/gtest.h>

#include <vector>

#include "damka/movegen.hpp"
#include "damka/notation.hpp"

namespace damka {
namespace {

void expect_perft(Variant v, const std::vector<std::uint64_t>& want, MoveMode mode, int first_depth = 1,
                  const char* fen = nullptr) {
  const Rules& r = rules_of(v);
  Position p = start_position(r);
  if (fen) {
    auto parsed = parse_fen(r, fen);
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    p = *parsed;
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    const int depth = first_depth + static_cast<int>(i);
    EXPECT_EQ(perft(r, p, depth, mode), want[i]) << r.name << " depth " << depth;
  }
}

TEST(Perft, RussianMerged) {
  expect_perft(Variant::Russian, {7, 49, 302, 1469, 7482, 37986, 190146, 929899, 4570586, 22444032}, MoveMode::Merged);
}
TEST(Perft, RussianAllPaths) {
  expect_perft(Variant::Russian, {190146, 929905, 4570667, 22450628}, MoveMode::AllPaths, 7);
}
TEST(Perft, BrazilianMerged) {
  expect_perft(Variant::Brazilian, {7, 49, 302, 1469, 7473, 37628, 187302, 907830, 4431766, 21560022},
               MoveMode::Merged);
}
TEST(Perft, BrazilianAllPaths) {
  expect_perft(Variant::Brazilian, {187302, 907836, 4431847, 21566606}, MoveMode::AllPaths, 7);
}
TEST(Perft, EnglishMerged) {
  expect_perft(Variant::English, {7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564},
               MoveMode::Merged);
}
TEST(Perft, EnglishAllPathsEqualMergedAtShallowDepths) {
  // Published: paths and merged agree up to depth 11 (85,242,128).
  expect_perft(Variant::English, {3963680, 18391564}, MoveMode::AllPaths, 9);
}
TEST(Perft, ThaiCaptureRulesFromTwelveManStart) {
  // Thai rules from a 12-man, 3-row start (Black moves first): published figures.
  expect_perft(Variant::Thai, {7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963648}, MoveMode::Merged, 1,
               "B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8");
}
TEST(Perft, ThaiStartPosition) {
  const Rules& r = rules_of(Variant::Thai);
  const Position p = start_position(r);
  EXPECT_EQ(to_fen(r, p), "B:Wa1,b2,c1,d2,e1,f2,g1,h2:Ba7,b8,c7,d8,e7,f8,g7,h8");
  EXPECT_EQ(perft(r, p, 1), 7u);
}
TEST(Perft, FilipinoEqualsBrazilian) {
  for (int d = 1; d <= 9; ++d)
    EXPECT_EQ(perft(rules_of(Variant::Filipino), start_position(rules_of(Variant::Filipino)), d),
              perft(rules_of(Variant::Brazilian), start_position(rules_of(Variant::Brazilian)), d));
  EXPECT_EQ(rules_of(Variant::Filipino).fingerprint(), rules_of(Variant::Brazilian).fingerprint());
  EXPECT_NE(rules_of(Variant::Mozambique).fingerprint(), rules_of(Variant::Brazilian).fingerprint());
}
TEST(Perft, MozambiqueFromStart) {
  // No published figures: the first captures arise at depth 3, where all
  // sequences take one man, so Mozambique agrees with Brazilian that deep.
  for (int d = 1; d <= 4; ++d)
    EXPECT_EQ(perft(rules_of(Variant::Mozambique), start_position(rules_of(Variant::Mozambique)), d),
              perft(rules_of(Variant::Brazilian), start_position(rules_of(Variant::Brazilian)), d));
}

}  // namespace
}  // namespace damka
