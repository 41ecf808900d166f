// Reading PDN files (damka/pdn.hpp): games, tags, main-line moves; comments,
// variations, NAGs, move numbers and marks left out; broken games reported
// with their line, and any text read without a crash.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "damka/pdn.hpp"

namespace {

using damka::read_pdn;

TEST(Pdn, TagsMovesCommentsVariationsAndResults) {
  const auto games = read_pdn(
      "[Event \"A \\\"quoted\\\" name\"]\n"
      "[FEN \"W:WKa1,Kc3,Ke5:BKh8\"]\n"
      "\n"
      "1. c3-b4! {a comment (with a parenthesis)} h8:a5 (1... h8-g7 {inside} (2. a1-b2) 2. e5-f6) "
      "2.a1-b2 $2 a5-b6?! ; the rest of the line\n"
      "3. b2-a3 1/2-1/2\n"
      "[Event \"second\"]\n"
      "1. c3-d4 f6-g5 2 d4-c5 *\n");
  ASSERT_EQ(games.size(), 2u);
  const auto& g = games[0];
  EXPECT_EQ(g.error, "");
  EXPECT_EQ(g.line, 1u);
  EXPECT_EQ(g.tag("event"), "A \"quoted\" name");
  EXPECT_EQ(g.tag("FEN"), "W:WKa1,Kc3,Ke5:BKh8");
  EXPECT_TRUE(g.has_tag("Fen"));
  EXPECT_FALSE(g.has_tag("Site"));
  EXPECT_EQ(g.moves, (std::vector<std::string>{"c3-b4", "h8:a5", "a1-b2", "a5-b6", "b2-a3"}));
  EXPECT_EQ(g.move_lines, (std::vector<std::size_t>{4, 4, 4, 4, 5}));
  EXPECT_EQ(g.result, "1/2-1/2");
  EXPECT_EQ(games[1].line, 6u);
  EXPECT_EQ(games[1].moves, (std::vector<std::string>{"c3-d4", "f6-g5", "d4-c5"}));
  EXPECT_EQ(games[1].result, "*");
}

TEST(Pdn, AGameWithoutAResultEndsWhereTheNextTagsBegin) {
  const auto games = read_pdn("[Event \"a\"]\n1. c3-d4 f6-g5\n[Event \"b\"]\n1. a3-b4 *\n");
  ASSERT_EQ(games.size(), 2u);
  EXPECT_EQ(games[0].result, "");
  EXPECT_EQ(games[0].moves.size(), 2u);
  EXPECT_EQ(games[1].tag("Event"), "b");
  EXPECT_EQ(games[1].line, 3u);
  // English numeric moves are moves, not move numbers.
  const auto english = read_pdn("1. 11-15 23-19 2. 8-11 *");
  ASSERT_EQ(english.size(), 1u);
  EXPECT_EQ(english[0].moves, (std::vector<std::string>{"11-15", "23-19", "8-11"}));
  EXPECT_TRUE(read_pdn("").empty());
  EXPECT_TRUE(read_pdn("  \n {only a comment}\n").empty());
}

TEST(Pdn, BrokenGamesSayWhatAndWhereAndTheNextGamesAreRead) {
  const auto games = read_pdn(
      "[Event \"bad tag]\n1. c3-d4 *\n"      // line 1: the tag's value is not closed
      "[Event \"ok\"]\n1. c3-d4 ) *\n"        // line 4: a ')' that closes nothing
      "[Event \"ok too\"]\n1. c3-d4 *\n"
      "[Event \"open variation\"]\n1. c3-d4 (1... f6-g5\n2. a1-b2 *\n");
  ASSERT_EQ(games.size(), 4u);
  EXPECT_NE(games[0].error.find("line 1: a tag"), std::string::npos) << games[0].error;
  EXPECT_NE(games[1].error.find("line 4: a ')'"), std::string::npos) << games[1].error;
  EXPECT_EQ(games[2].error, "");
  EXPECT_EQ(games[2].tag("Event"), "ok too");
  EXPECT_NE(games[3].error.find("line 8: a variation '(' is not closed"), std::string::npos) << games[3].error;
  const auto open_comment = read_pdn("[Event \"x\"]\n1. c3-d4 {no end\n\n");
  ASSERT_EQ(open_comment.size(), 1u);
  EXPECT_NE(open_comment[0].error.find("line 2: a comment '{' is not closed"), std::string::npos)
      << open_comment[0].error;
}

RC_GTEST_PROP(Pdn, AnyTextIsReadWithoutACrash, ()) {
  const std::string text = *rc::gen::container<std::string>(rc::gen::inRange<char>(1, 127));
  const std::string base = "[Event \"e\"]\n[FEN \"W:WKa1:BKh8\"]\n1. a1-b2 {c} h8-g7 (1... h8-a1) 2. b2-c3 *\n";
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, base.size());
  for (const std::string& t : {text, base.substr(0, at) + text + base.substr(at)}) {
    for (const auto& g : read_pdn(t)) {
      RC_ASSERT(g.moves.size() == g.move_lines.size());
      RC_ASSERT(g.line >= 1u);
      for (const auto& m : g.moves) RC_ASSERT(!m.empty());
    }
  }
}

}  // namespace
