// The rule-aware probe through the C API (damka_statutes.h): positions on
// both sides of a limit, and bad arguments.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "damka.h"
#include "damka/generate.hpp"
#include "damka/notation.hpp"
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
  // The longest 3Kv1K win with a king on the main road: 11 moves of 15 (the
  // count ends where the lone king must take a king).
  const char* fen = "W:WKa1,Kb2,Kc3:BKc1";
  damka_statute_verdict v;
  ASSERT_EQ(damka_judge_statute_fen(tb_, "russian-federation", fen, 4, &v), DAMKA_OK) << damka_last_error();
  EXPECT_EQ(v.covered, 1);
  EXPECT_EQ(v.winner, DAMKA_WHITE);
  EXPECT_EQ(v.wins_in_time, 1) << v.summary;
  EXPECT_EQ(v.moves_needed, 11);
  EXPECT_EQ(v.moves_left, 11);

  ASSERT_EQ(damka_judge_statute_fen(tb_, "russian-federation", fen, 5, &v), DAMKA_OK) << damka_last_error();
  EXPECT_EQ(v.wins_in_time, 0) << v.summary;
  EXPECT_EQ(v.moves_left, 10);
  EXPECT_NE(std::string(v.summary).find("draw"), std::string::npos) << v.summary;

  // One counter per clause, FEN and bitboards alike: 2.1.9.1.8 at 4 moves is
  // in time, at 5 it decides; the other clauses stay at 0.
  auto p = damka::parse_fen(damka::rules_of(damka::Variant::Russian), fen);
  ASSERT_TRUE(p.ok());
  for (int played : {4, 5}) {
    const damka_statute_count counts[] = {{"2.1.9.1.8", played}, {"2.1.9.1.5", 19}};
    damka_statute_verdict a, b;
    ASSERT_EQ(damka_judge_statute_counts_fen(tb_, "russian-federation", fen, counts, 2, &a), DAMKA_OK)
        << damka_last_error();
    ASSERT_EQ(damka_judge_statute_counts(tb_, "russian-federation", p->men[0], p->kings[0], p->men[1], p->kings[1],
                                         DAMKA_WHITE, counts, 2, &b),
              DAMKA_OK)
        << damka_last_error();
    EXPECT_EQ(a.wins_in_time, played == 4 ? 1 : 0) << a.summary;
    EXPECT_EQ(b.wins_in_time, a.wins_in_time);
    EXPECT_STREQ(a.summary, b.summary);
    if (played == 5) {
      EXPECT_STREQ(a.clause, "2.1.9.1.8");
    }
  }
  const damka_statute_count bad[] = {{"2.1.9.1.9", 1}};
  EXPECT_EQ(damka_judge_statute_counts_fen(tb_, "russian-federation", fen, bad, 1, &v), DAMKA_E_BAD_ARGUMENT);
  EXPECT_NE(std::string(damka_last_error()).find("2.1.9.1.9"), std::string::npos) << damka_last_error();
  EXPECT_EQ(damka_judge_statute_counts_fen(tb_, "russian-federation", fen, nullptr, 1, &v), DAMKA_E_BAD_ARGUMENT);
  // Two pieces on a1: an invalid position, the same status as damka_probe gives it (issue 28).
  EXPECT_EQ(damka_judge_statute_counts(tb_, "russian-federation", 1u, 1u, 0u, 2u, DAMKA_WHITE, nullptr, 0, &v),
            DAMKA_E_INVALID_POSITION);
}

// An invalid position is DAMKA_E_INVALID_POSITION in both C APIs, with the
// same message (probeable(), probe.hpp), whatever makes it invalid.
TEST_F(StatutesCApi, InvalidPositionsAreTheProbesStatus) {
  struct Case {
    std::uint32_t wm, wk, bm, bk;
    int stm;
    const char* why;
  };
  const Case cases[] = {
      {1u, 1u, 0u, 2u, DAMKA_WHITE, "two pieces"},              // a1 twice
      {1u << 28, 1u, 0u, 1u << 20, DAMKA_WHITE, "promotion row"},  // a white man on the 8th rank
      {0u, 1u, 0u, 0u, DAMKA_WHITE, "no pieces"},               // Black, not to move, has none
  };
  for (const Case& c : cases) {
    damka_statute_verdict v;
    damka_value pv;
    EXPECT_EQ(damka_probe(tb_, c.wm, c.wk, c.bm, c.bk, c.stm, DAMKA_WDL, &pv), DAMKA_E_INVALID_POSITION) << c.why;
    const std::string probe_message = damka_last_error();
    EXPECT_NE(probe_message.find(c.why), std::string::npos) << probe_message;
    EXPECT_EQ(damka_judge_statute_counts(tb_, "russian-federation", c.wm, c.wk, c.bm, c.bk, c.stm, nullptr, 0, &v),
              DAMKA_E_INVALID_POSITION)
        << c.why;
    EXPECT_EQ(std::string(damka_last_error()), probe_message);
  }
  // A FEN whose side to move has no pieces: the statutes cannot judge it (the game is over).
  damka_statute_verdict v;
  EXPECT_EQ(damka_judge_statute_fen(tb_, "russian-federation", "W:WKa1", 0, &v), DAMKA_E_INVALID_POSITION)
      << damka_last_error();
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
