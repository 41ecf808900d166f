// statutes_json (statute_json.hpp): the verdict JSON every front end writes.
#include <gtest/gtest.h>

#include "damka/statute_json.hpp"

namespace damka {
namespace {

TEST(StatutesJson, AVerdictThenItsRulebookAndCount) {
  StatuteVerdict v;
  v.value = Value::win(9);
  v.winner = Color::White;
  v.summary = "White wins (DTW 9 plies)";
  const auto j = statutes_json("russian-federation", 3, Expected<StatuteVerdict>(v));
  auto expected = verdict_json(v);
  expected["rulebook"] = "russian-federation";
  expected["moves_played"] = 3;
  EXPECT_EQ(j.dump(), expected.dump());
  EXPECT_EQ(j["winner"], "white");
  EXPECT_EQ(j["value"].dump(), R"({"result":"win","plies":9})");
  // The last two keys, in this order.
  auto it = j.end();
  --it;
  EXPECT_EQ(it.key(), "moves_played");
  --it;
  EXPECT_EQ(it.key(), "rulebook");
}

TEST(StatutesJson, NoVerdictIsUnknownWithWhy) {
  const auto j = statutes_json("ukrainian-64", 0,
                               Expected<StatuteVerdict>(Error("no table for 3Kv1K (tables in T)", ErrorCode::NotFound)));
  EXPECT_EQ(j.dump(), R"j({"rulebook":"ukrainian-64","status":"unknown","error":"no table for 3Kv1K (tables in T)"})j");
  // Kept in a sorted nlohmann::json (serve), the same keys sorted.
  EXPECT_EQ(nlohmann::json(j).dump(),
            R"j({"error":"no table for 3Kv1K (tables in T)","rulebook":"ukrainian-64","status":"unknown"})j");
}

}  // namespace
}  // namespace damka
