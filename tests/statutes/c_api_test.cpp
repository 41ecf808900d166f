// The rule-aware probe through the C API (damka_statutes.h): positions on
// both sides of a limit, and bad arguments.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "damka.h"
#include "damka/generate.hpp"
#include "damka_statutes.h"

namespace {

namespace fs = std::filesystem;

class StatutesCApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("damka-statutes-capi-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    damka::GenerateOptions o;
    o.max_pieces = 4;
    o.out = dir_;
    o.threads = 1;
    o.only = damka::Material{0, 3, 0, 1};
    auto r = damka::generate(damka::rules_of(damka::Variant::Russian), o);
    ASSERT_TRUE(r.ok()) << r.message();
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  void SetUp() override { ASSERT_EQ(damka_open("russian", dir_.c_str(), 1 << 20, &tb_), DAMKA_OK) << damka_last_error(); }
  void TearDown() override { damka_close(tb_); }

  static fs::path dir_;
  damka_tablebase* tb_ = nullptr;
};
fs::path StatutesCApi::dir_;

TEST_F(StatutesCApi, BothSidesOfTheMainRoadLimit) {
  // The longest 3Kv1K win with a king on the main road: 13 moves of 15.
  const char* fen = "W:WKa1,Kb2,Kc3:BKc1";
  damka_statute_verdict v;
  ASSERT_EQ(damka_judge_statute_fen(tb_, "russian-federation", fen, 2, &v), DAMKA_OK) << damka_last_error();
  EXPECT_EQ(v.covered, 1);
  EXPECT_EQ(v.winner, DAMKA_WHITE);
  EXPECT_EQ(v.wins_in_time, 1) << v.summary;
  EXPECT_EQ(v.moves_needed, 13);
  EXPECT_EQ(v.moves_left, 13);
  EXPECT_STREQ(v.clause, "2.1.9.1.3");

  ASSERT_EQ(damka_judge_statute_fen(tb_, "russian-federation", fen, 3, &v), DAMKA_OK) << damka_last_error();
  EXPECT_EQ(v.wins_in_time, 0) << v.summary;
  EXPECT_EQ(v.moves_left, 12);
  EXPECT_STREQ(v.clause, "2.1.9.1.3");
  EXPECT_NE(std::string(v.summary).find("draw"), std::string::npos) << v.summary;
}

TEST_F(StatutesCApi, BadArgumentsAreRefusedWithAMessage) {
  damka_statute_verdict v;
  EXPECT_EQ(damka_judge_statute_fen(tb_, "no-such-book", "W:WKa1,Kb2,Kc3:BKc1", 0, &v), DAMKA_E_BAD_ARGUMENT);
  EXPECT_NE(std::string(damka_last_error()).find("no-such-book"), std::string::npos) << damka_last_error();
  EXPECT_EQ(damka_judge_statute_fen(tb_, "russian-federation", "W:Wz9", 0, &v), DAMKA_E_BAD_FEN);
  EXPECT_EQ(damka_judge_statute_fen(tb_, "russian-federation", "W:WKa1,Kb2,Kc3:BKc1", -1, &v), DAMKA_E_BAD_ARGUMENT);
  EXPECT_EQ(damka_judge_statute_fen(nullptr, "russian-federation", "W:WKa1:BKc1", 0, &v), DAMKA_E_BAD_ARGUMENT);
  EXPECT_EQ(damka_judge_statute_fen(tb_, "russian-federation", "W:WKa1,Kb2:BKc1,Kh8", 0, &v), DAMKA_UNKNOWN)
      << damka_last_error();
}

}  // namespace
