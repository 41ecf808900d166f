// FEN and move notation: round trips, mirrored boards, numeric squares, and
// rejection of malformed input with a message that says what and where.
#include <gtest/gtest.h>

#include "damka/notation.hpp"

namespace damka {
namespace {

const Rules& R(Variant v) { return rules_of(v); }

TEST(Notation, SquareNames) {
  const Rules& ru = R(Variant::Russian);
  EXPECT_EQ(square_name(ru, 0), "a1");
  EXPECT_EQ(square_name(ru, 31), "h8");
  EXPECT_EQ(square_name(ru, 4), "b2");
  const Rules& en = R(Variant::English);
  EXPECT_EQ(square_name(en, *parse_square(en, "b8")), "1");
  EXPECT_EQ(square_name(en, *parse_square(en, "h8")), "4");
  EXPECT_EQ(square_name(en, *parse_square(en, "a7")), "5");
  EXPECT_EQ(square_name(en, *parse_square(en, "a1")), "29");
  EXPECT_EQ(square_name(en, *parse_square(en, "g1")), "32");
  for (int s = 0; s < 32; ++s)
    for (Variant v : all_variants()) {
      EXPECT_EQ(*parse_square(R(v), square_name(R(v), s)), s);
      EXPECT_EQ(*parse_square(R(v), square_name_algebraic(R(v), s)), s);
    }
}

TEST(Notation, MirroredBoardsReflectFiles) {
  for (Variant v : {Variant::Filipino, Variant::Mozambique}) {
    // Their h1 is our a1; their a1 is not a playing square.
    EXPECT_EQ(*parse_square(R(v), "h1"), 0);
    EXPECT_EQ(*parse_square(R(v), "b1"), 3);
    EXPECT_FALSE(parse_square(R(v), "a1").ok());
    const Position start = start_position(R(v));
    EXPECT_EQ(start, start_position(R(Variant::Brazilian)));
    EXPECT_EQ(to_fen(R(v), start).substr(0, 12), "W:Wa2,b1,b3,");  // b1, a2, b3 are their dark squares
    auto back = parse_fen(R(v), to_fen(R(v), start));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, start);
  }
}

TEST(Notation, FenRoundTripEveryVariant) {
  for (Variant v : all_variants()) {
    const Position p = start_position(R(v));
    auto q = parse_fen(R(v), to_fen(R(v), p));
    ASSERT_TRUE(q.ok()) << q.message();
    EXPECT_EQ(*q, p);
  }
  EXPECT_EQ(to_fen(R(Variant::Russian), *parse_fen(R(Variant::Russian), "W:Wa1,Kc3,e5:Bb8,Kh2")),
            "W:Wa1,Kc3,e5:Bb8,Kh2");
}

TEST(Notation, EnglishNumericAndRanges) {
  const Rules& en = R(Variant::English);
  auto p = parse_fen(en, "B:W21-32:B1-12");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(*p, start_position(en));
  EXPECT_EQ(to_fen(en, *p), "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12");
  auto k = parse_fen(en, "W:WK22:B18,19,26,27.");
  ASSERT_TRUE(k.ok()) << k.message();
}

TEST(Notation, MalformedFensAreRejectedWithReasons) {
  const Rules& ru = R(Variant::Russian);
  struct Case {
    const char* fen;
    const char* says;
  } cases[] = {
      {"", "empty"},
      {"X:Wa1:Bb8", "side to move"},
      {"W;Wa1:Bb8", "column 2"},
      {"W:Wa1:Bb8:Wc3", "listed twice"},
      {"W:Wa1,a1:Bb8", "listed twice"},
      {"W:Wa1:Ba1", "listed twice"},
      {"W:Wa2:Bb8", "not a playing square"},
      {"W:Wi1:Bb8", "file must be a-h"},
      {"W:Wa9:Bb8", "rank must be 1-8"},
      {"W:Wb8:Ba1", "promotion row"},
      {"W:Wa1,:Bb8", "empty square"},
      {"W:W21-32:B1-12", "numeric"},
      {"W:Qa1", "W or B"},
      {"W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3,b4:Bb8", "more than 12"},
      {"W:Wa1:Bb8 extra", "column"},
  };
  for (const Case& c : cases) {
    auto p = parse_fen(ru, c.fen);
    ASSERT_FALSE(p.ok()) << "accepted: " << c.fen;
    EXPECT_NE(p.message().find(c.says), std::string::npos) << c.fen << " -> " << p.message();
  }
  EXPECT_FALSE(parse_fen(R(Variant::English), "W:W33:B1").ok());
  EXPECT_FALSE(parse_fen(R(Variant::English), "W:W0:B1").ok());
  EXPECT_FALSE(parse_fen(R(Variant::English), "W:W12-3:B1").ok());
}

TEST(Notation, MovesParseAndPrint) {
  const Rules& ru = R(Variant::Russian);
  const Position start = start_position(ru);
  auto m = parse_move(ru, start, "c3-d4");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(move_to_string(ru, start, *m), "c3-d4");
  auto cap_pos = parse_fen(ru, "W:WKa1:Bc3,f4");
  auto cap = parse_move(ru, *cap_pos, "a1:g3");
  ASSERT_TRUE(cap.ok()) << cap.message();
  EXPECT_EQ(popcount(cap->taken), 2);
  EXPECT_EQ(move_to_string(ru, *cap_pos, *cap), "a1:g3");
  EXPECT_TRUE(parse_move(ru, *cap_pos, "a1xe5xg3").ok());
  EXPECT_TRUE(parse_move(ru, *cap_pos, "a1:e5:g3").ok());
}

TEST(Notation, AmbiguousMovesNeedTurningSquares) {
  // The king on a1 can reach e5... two different capture routes a1 -> g7? Build one:
  // Russian king on d2: d2:h6:f8 vs d2:a5:...; use the standard example with two routes
  // sharing start and end but taking different pieces.
  const Rules& ru = R(Variant::Russian);
  auto p = parse_fen(ru, "W:WKc1:Bd2,b4,f4,d6,f6");
  ASSERT_TRUE(p.ok());
  MoveList moves;
  generate_moves(ru, *p, moves);
  for (const Move& m : moves) {
    const std::string text = move_to_string(ru, *p, m);
    auto back = parse_move(ru, *p, text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.message();
    EXPECT_TRUE(back->same_result(m)) << text;
  }
}

TEST(Notation, BadMovesAreRejected) {
  const Rules& ru = R(Variant::Russian);
  const Position start = start_position(ru);
  for (const char* bad : {"", "c3", "c3-c4", "c3-e5", "z3-d4", "c3-d4-e5", "a1-b2", "c3--d4"}) {
    auto m = parse_move(ru, start, bad);
    EXPECT_FALSE(m.ok()) << bad;
    if (!m.ok()) {
      EXPECT_NE(m.message().find("move"), std::string::npos) << m.message();
    }
  }
  EXPECT_NE(parse_move(ru, start, "c3-e5").message().find("legal:"), std::string::npos);
}

}  // namespace
}  // namespace damka
