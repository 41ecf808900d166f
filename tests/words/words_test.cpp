// The presentation words (words.hpp, words_json.hpp): every word of every
// enum value, the texts built from them, their JSON, and the parsers'
// round trips.
#include <gtest/gtest.h>

#include <string>

#include "damka/notation.hpp"
#include "damka/words.hpp"
#include "damka/words_json.hpp"

namespace damka {
namespace {

TEST(Words, Colours) {
  EXPECT_STREQ(color_word(Color::White), "white");
  EXPECT_STREQ(color_word(Color::Black), "black");
  EXPECT_STREQ(color_title(Color::White), "White");
  EXPECT_STREQ(color_title(Color::Black), "Black");
  for (Color c : {Color::White, Color::Black}) {
    EXPECT_EQ(parse_color(color_word(c)), c);
    EXPECT_EQ(parse_color(std::string(1, color_word(c)[0])), c);   // "w", "b"
    EXPECT_EQ(parse_color(std::string(1, color_title(c)[0])), c);  // "W", "B"
  }
  for (const char* bad : {"", "White", "BLACK", "red", "wh", " white"}) EXPECT_FALSE(parse_color(bad)) << bad;
}

TEST(Words, Results) {
  EXPECT_STREQ(result_word(Wdl::Win), "win");
  EXPECT_STREQ(result_word(Wdl::Draw), "draw");
  EXPECT_STREQ(result_word(Wdl::Loss), "loss");
  for (Wdl w : {Wdl::Win, Wdl::Draw, Wdl::Loss}) EXPECT_EQ(parse_result(result_word(w)), w);
  for (const char* bad : {"", "Win", "won", "lost", "drawn", "draws"}) EXPECT_FALSE(parse_result(bad)) << bad;
}

TEST(Words, Metrics) {
  for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) {
    EXPECT_EQ(parse_metric(metric_name(m)), m);
    std::string upper(metric_name(m));
    for (char& c : upper) c = static_cast<char>(c - 'a' + 'A');
    EXPECT_EQ(parse_metric(upper), m);
  }
  for (const char* bad : {"", "Dtw", "dtz", "wdl ", "w"}) EXPECT_FALSE(parse_metric(bad)) << bad;
}

TEST(Words, Plies) {
  EXPECT_EQ(plies_text(0), "0 plies");
  EXPECT_EQ(plies_text(1), "1 ply");
  EXPECT_EQ(plies_text(2), "2 plies");
}

TEST(Words, DescribeValue) {
  EXPECT_EQ(describe_value(Value::win(7), Metric::DTW), "win in 7 plies");
  EXPECT_EQ(describe_value(Value::win(1), Metric::DTC), "win in 1 ply");
  EXPECT_EQ(describe_value(Value::loss(0), Metric::DTW), "loss in 0 plies");
  EXPECT_EQ(describe_value(Value::draw(), Metric::DTW), "draw");
  EXPECT_EQ(describe_value(Value::win(7), Metric::WDL), "win");
  EXPECT_EQ(describe_value(Value::loss(4), Metric::WDL), "loss");
  EXPECT_EQ(describe_value(Value::draw(), Metric::WDL), "draw");
}

TEST(Words, ValueShort) {
  EXPECT_EQ(value_short(Value::win(5), Metric::DTW), "win in 5");
  EXPECT_EQ(value_short(Value::loss(0), Metric::DTC), "loss in 0");
  EXPECT_EQ(value_short(Value::draw(), Metric::DTC), "draw");
  EXPECT_EQ(value_short(Value::win(5), Metric::WDL), "win");
}

TEST(Words, Winners) {
  EXPECT_EQ(winner_of(Color::White, Wdl::Win), Color::White);
  EXPECT_EQ(winner_of(Color::White, Wdl::Loss), Color::Black);
  EXPECT_EQ(winner_of(Color::Black, Wdl::Win), Color::Black);
  EXPECT_EQ(winner_of(Color::Black, Wdl::Loss), Color::White);
  EXPECT_EQ(winner_text(Color::White, Wdl::Win), "White wins");
  EXPECT_EQ(winner_text(Color::Black, Wdl::Loss), "White wins");
  EXPECT_EQ(winner_text(Color::Black, Wdl::Win), "Black wins");
  EXPECT_EQ(winner_text(Color::White, Wdl::Draw), "draw");
  EXPECT_EQ(winner_word(Color::White, Wdl::Loss), "black wins");
  EXPECT_EQ(winner_word(Color::Black, Wdl::Loss), "white wins");
  EXPECT_EQ(winner_word(Color::Black, Wdl::Draw), "draw");
}

TEST(WordsJson, Values) {
  EXPECT_EQ(value_json(Value::win(7)).dump(), R"({"result":"win","plies":7})");
  EXPECT_EQ(value_json(Value::loss(0)).dump(), R"({"result":"loss","plies":0})");
  EXPECT_EQ(value_json(Value::draw()).dump(), R"({"result":"draw","plies":0})");
  EXPECT_EQ(value_json(Value::win(7), Metric::WDL).dump(), R"({"result":"win"})");
  EXPECT_EQ(value_json(Value::win(7), Metric::DTW).dump(), R"({"result":"win","plies":7})");
  EXPECT_EQ(value_json(Value::draw(), Metric::DTC).dump(), R"({"result":"draw","plies":0})");
  // Kept in a sorted nlohmann::json, the keys sort like any other.
  EXPECT_EQ(nlohmann::json(value_json(Value::loss(3))).dump(), R"({"plies":3,"result":"loss"})");
  for (Wdl w : {Wdl::Win, Wdl::Draw, Wdl::Loss}) {
    const Value v{w, static_cast<std::uint16_t>(w == Wdl::Draw ? 0 : 9)};
    const auto j = value_json(v);
    EXPECT_EQ(parse_result(j["result"].get<std::string>()), w);  // round trip
    EXPECT_EQ(j["plies"].get<int>(), v.plies);
  }
}

TEST(WordsJson, Distances) {
  EXPECT_TRUE(distance_json(Value::draw()).is_null());
  EXPECT_EQ(distance_json(Value::win(3)).get<int>(), 3);
  EXPECT_EQ(distance_json(Value::loss(0)).get<int>(), 0);
}

// Move notation: a line as one text per ply, each in the position it is played from.
TEST(Words, LineMoves) {
  const Rules& rules = rules_of(Variant::Russian);
  Position p = start_position(rules);
  std::vector<Move> line;
  std::vector<std::string> texts;
  for (int ply = 0; ply < 4; ++ply) {
    MoveList moves;
    generate_moves(rules, p, moves);
    ASSERT_FALSE(moves.empty());
    line.push_back(moves.back());
    texts.push_back(move_to_string(rules, p, moves.back()));
    p = apply(p, moves.back());
  }
  EXPECT_EQ(line_moves(rules, start_position(rules), line), texts);
  EXPECT_TRUE(line_moves(rules, p, {}).empty());
}

}  // namespace
}  // namespace damka
