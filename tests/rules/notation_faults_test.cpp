// Move texts found by fuzzing (fuzz/fuzz_fen.cpp): every text move_to_string
// writes is read back as the same move.
#include <gtest/gtest.h>

#include "damka/notation.hpp"

namespace damka {
namespace {

TEST(NotationFaults, ShortCaptureTextIsNotAmbiguousWithALongerPathToTheSameSquare) {
  const Rules& r = rules_of(Variant::Russian);
  // The king on e3 takes f2 landing on g1, or takes f4, f6, d6 and h2 also
  // landing on g1: "e3:g1" is the first, the whole path names the second.
  const auto p = parse_fen(r, "W:WKe3:Bd6,Kh4,f2,f6,Kh2,f4");
  ASSERT_TRUE(p.ok()) << p.message();
  const auto f2 = parse_square(r, "f2");
  const auto m = parse_move(r, *p, "e3:g1");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->taken, bit(*f2));
  const auto longer = parse_move(r, *p, "e3:g5:e7:c5:g1");
  ASSERT_TRUE(longer.ok()) << longer.message();
  EXPECT_NE(longer->taken, bit(*f2));
  MoveList moves;
  generate_moves(r, *p, moves);
  for (const Move& mv : moves) {
    const auto back = parse_move(r, *p, move_to_string(r, *p, mv));
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_TRUE(back->same_result(mv)) << move_to_string(r, *p, mv);
  }
}

}  // namespace
}  // namespace damka
