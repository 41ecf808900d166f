// Every worked example of the rulebooks (the team's rules reference), plus
// the capture-choice rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "damka/movegen.hpp"
#include "damka/notation.hpp"

namespace damka {
namespace {

struct Listed {
  std::set<std::string> moves;  // notation, with full paths
  std::set<bool> promotes;
};

// Legal moves written with every landing square, and whether they crown.
Listed list_moves(Variant v, const char* fen, MoveMode mode = MoveMode::Merged) {
  const Rules& r = rules_of(v);
  auto p = parse_fen(r, fen);
  EXPECT_TRUE(p.ok()) << p.message();
  MoveList moves;
  generate_moves(r, *p, moves, mode);
  Listed out;
  for (const Move& m : moves) {
    std::string s = square_name(r, m.from);
    for (int i = 0; i < m.num_steps; ++i) s += ":" + square_name(r, m.path[i]);
    out.moves.insert(s);
    out.promotes.insert(m.promotes);
  }
  EXPECT_EQ(out.moves.size(), moves.size()) << fen;
  return out;
}

TEST(Examples, RussianKingMustLandWhereItContinues) {
  const Listed l = list_moves(Variant::Russian, "W:WKa1:Bc3,f4");
  EXPECT_EQ(l.moves, (std::set<std::string>{"a1:e5:g3", "a1:e5:h2"}));
}

TEST(Examples, RussianManPromotesDuringCaptureAndContinuesAsKing) {
  const Listed l = list_moves(Variant::Russian, "W:Wb6:Bc7,e7");
  EXPECT_EQ(l.moves, (std::set<std::string>{"b6:d8:f6", "b6:d8:g5", "b6:d8:h4"}));
  EXPECT_EQ(l.promotes, std::set<bool>{true});
}

TEST(Examples, BrazilianPromotesAndStopsWhenNoManCapture) {
  const Listed l = list_moves(Variant::Brazilian, "W:Wb6:Bc7,f6");
  EXPECT_EQ(l.moves, std::set<std::string>{"b6:d8"});
  EXPECT_EQ(l.promotes, std::set<bool>{true});
}

TEST(Examples, BrazilianContinuesAsManThroughThePromotionRow) {
  const Listed l = list_moves(Variant::Brazilian, "W:Wb6:Bc7,e7");
  EXPECT_EQ(l.moves, std::set<std::string>{"b6:d8:f6"});
  EXPECT_EQ(l.promotes, std::set<bool>{false});
}

TEST(Examples, FilipinoAndMozambiquePromoteLikeBrazilian) {
  // Same internal position, named on the mirrored board (files reflected).
  for (Variant v : {Variant::Filipino, Variant::Mozambique}) {
    const Listed l = list_moves(v, "W:Wg6:Bf7,d7");
    EXPECT_EQ(l.moves, std::set<std::string>{"g6:e8:c6"}) << rules_of(v).name;
    EXPECT_EQ(l.promotes, std::set<bool>{false});
  }
}

TEST(Examples, EnglishRingCaptureIsOneMove) {
  const Rules& r = rules_of(Variant::English);
  auto p = parse_fen(r, "W:WK22:B18,19,26,27");
  ASSERT_TRUE(p.ok()) << p.message();
  MoveList merged, paths;
  generate_moves(r, *p, merged, MoveMode::Merged);
  generate_moves(r, *p, paths, MoveMode::AllPaths);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(paths.size(), 2u);
  EXPECT_EQ(merged[0].from, merged[0].to);
  EXPECT_EQ(popcount(merged[0].taken), 4);
  EXPECT_EQ(to_fen(r, apply(*p, merged[0])), "B:WK22:B");
}

TEST(Examples, MozambiqueTakesTheGreatestValue) {
  // c3 can take the king on b4 (value 2) or the man on d4 (value 1).
  const char* fen = "W:Wc3:BKb4,d4";
  // Mozambique names the same squares on its mirrored board.
  EXPECT_EQ(list_moves(Variant::Mozambique, "W:Wf3:BKg4,e4").moves, std::set<std::string>{"f3:h5"});
  EXPECT_EQ(list_moves(Variant::Brazilian, fen).moves, (std::set<std::string>{"c3:a5", "c3:e5"}));
  EXPECT_EQ(list_moves(Variant::Russian, fen).moves, (std::set<std::string>{"c3:a5", "c3:e5"}));
}

TEST(Examples, MozambiqueEqualValueIsFreeBrazilianTakesMostPieces) {
  // e3 takes the king on d4 (value 2, one piece) or the men on f4 and f6 (value 2, two pieces).
  const Rules& moz = rules_of(Variant::Mozambique);
  const Rules& bra = rules_of(Variant::Brazilian);
  auto p = parse_fen(bra, "W:We3:BKd4,f4,f6");
  ASSERT_TRUE(p.ok());
  MoveList m1, m2;
  generate_moves(moz, *p, m1);
  generate_moves(bra, *p, m2);
  EXPECT_EQ(m1.size(), 2u);
  ASSERT_EQ(m2.size(), 1u);
  EXPECT_EQ(popcount(m2[0].taken), 2);
}

TEST(Examples, ThaiKingLandsRightBehindAndMayCrossTakenSquares) {
  const Listed l = list_moves(Variant::Thai, "W:WKa1:Bc3,f4");
  // a1 takes c3 and must land on d4; from d4 nothing further.
  EXPECT_EQ(l.moves, std::set<std::string>{"a1:d4"});
  // Immediate removal: the king turns back across the square it emptied.
  const Listed back = list_moves(Variant::Thai, "W:WKe5:Bd4,f6");
  EXPECT_EQ(back.moves, (std::set<std::string>{"e5:c3:g7", "e5:g7:c3"}));
}

TEST(Examples, TurkishStrikeTakenPiecesBlock) {
  // Russian: the taken d4 stays on the board until the move ends, so the king
  // cannot turn back across it to take f6: five one-piece captures.
  const Listed l = list_moves(Variant::Russian, "W:WKe5:Bd4,f6");
  EXPECT_EQ(l.moves, (std::set<std::string>{"e5:c3", "e5:b2", "e5:a1", "e5:g7", "e5:h8"}));
}

TEST(Examples, ThaiAndEnglishMenDoNotCaptureBackward) {
  for (Variant v : {Variant::Thai, Variant::English}) {
    const Rules& r = rules_of(v);
    auto p = parse_fen(r, "W:Wd4:Bc3,e5");
    ASSERT_TRUE(p.ok());
    MoveList moves;
    generate_moves(r, *p, moves);
    ASSERT_EQ(moves.size(), 1u) << r.name;
    EXPECT_EQ(square_name_algebraic(r, moves[0].to), "f6");
  }
  EXPECT_EQ(list_moves(Variant::Russian, "W:Wd4:Bc3,e5").moves, (std::set<std::string>{"d4:b2", "d4:f6"}));
}

TEST(Examples, CaptureIsCompulsory) {
  const Listed l = list_moves(Variant::Russian, "W:Wc3,h2:Bd4");
  EXPECT_EQ(l.moves, std::set<std::string>{"c3:e5"});
}

}  // namespace
}  // namespace damka
