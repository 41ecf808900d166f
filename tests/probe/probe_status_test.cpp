// The words and codes of probe statuses, and the one rule of which
// positions can be probed (probeable(), probe_status_error(), probe.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "damka/notation.hpp"
#include "damka/position_report.hpp"
#include "damka/probe.hpp"

namespace damka {
namespace {

constexpr ProbeStatus kStatuses[] = {ProbeStatus::Ok,      ProbeStatus::Unknown, ProbeStatus::NotCached,
                                     ProbeStatus::Corrupt, ProbeStatus::Invalid, ProbeStatus::IoError};

TEST(ProbeStatusWords, EveryStatusHasItsNameAndCode) {
  EXPECT_EQ(probe_status_name(ProbeStatus::Ok), "ok");
  EXPECT_EQ(probe_status_name(ProbeStatus::Unknown), "unknown (table missing)");
  EXPECT_EQ(probe_status_name(ProbeStatus::NotCached), "not in cache");
  EXPECT_EQ(probe_status_name(ProbeStatus::Corrupt), "table corrupt");
  EXPECT_EQ(probe_status_name(ProbeStatus::Invalid), "invalid position");
  EXPECT_EQ(probe_status_name(ProbeStatus::IoError), "i/o error (table not readable now)");
  EXPECT_EQ(probe_status_code(ProbeStatus::Unknown), ErrorCode::NotFound);
  EXPECT_EQ(probe_status_code(ProbeStatus::Corrupt), ErrorCode::Corrupt);
  EXPECT_EQ(probe_status_code(ProbeStatus::IoError), ErrorCode::Io);
  EXPECT_EQ(probe_status_code(ProbeStatus::Invalid), ErrorCode::InvalidPosition);
  EXPECT_EQ(probe_status_code(ProbeStatus::NotCached), ErrorCode::Other);
  for (ProbeStatus a : kStatuses)
    for (ProbeStatus b : kStatuses) {
      if (a != b) {
        EXPECT_NE(probe_status_name(a), probe_status_name(b));
      }
    }
}

TEST(ProbeStatusWords, ErrorCodeNames) {
  EXPECT_STREQ(error_code_name(ErrorCode::Other), "other");
  EXPECT_STREQ(error_code_name(ErrorCode::NotFound), "not found");
  EXPECT_STREQ(error_code_name(ErrorCode::Io), "i/o error");
  EXPECT_STREQ(error_code_name(ErrorCode::Corrupt), "corrupt");
  EXPECT_STREQ(error_code_name(ErrorCode::InvalidArgument), "invalid argument");
  EXPECT_STREQ(error_code_name(ErrorCode::InvalidPosition), "invalid position");
  // Stable numbers: the codes are exposed (C statuses map from them).
  EXPECT_EQ(static_cast<int>(ErrorCode::NotFound), 1);
  EXPECT_EQ(static_cast<int>(ErrorCode::Corrupt), 3);
  EXPECT_EQ(static_cast<int>(ErrorCode::InvalidArgument), 4);
  EXPECT_EQ(static_cast<int>(ErrorCode::InvalidPosition), 5);
}

Position at(const char* fen) {
  auto p = parse_fen(rules_of(Variant::Russian), fen);
  EXPECT_TRUE(p.ok()) << fen << ": " << p.message();
  return *p;
}

TEST(Probeable, TheOneRule) {
  EXPECT_TRUE(probeable(at("W:WKa1:BKh8")).ok());
  EXPECT_TRUE(probeable(at("B:WKa1,Kc3:BKh8")).ok());
  // A side to move without pieces has lost: probeable.
  Position lost;  // White to move with no pieces
  lost.kings[1] = bit(31);
  EXPECT_EQ(unprobeable_reason(lost), nullptr);
  EXPECT_TRUE(probeable(lost).ok());

  struct Case {
    Position p;
    const char* why;
  };
  Position overlap = at("W:WKa1:BKh8");
  overlap.men[1] = bit(0);  // a black man under the white king on a1
  Position man_on_row = at("W:WKa1:BKh8");
  man_on_row.men[0] = bit(29);  // a white man on the 8th rank
  Position game_over = at("W:WKa1");
  Position crowded;
  crowded.men[0] = 0x00001FFFu;  // 13 white men on the first rows
  crowded.kings[1] = bit(31);
  Position bad_side = at("W:WKa1:BKh8");
  bad_side.side_to_move = static_cast<Color>(2);
  const Case cases[] = {{overlap, "two pieces"},
                        {man_on_row, "promotion row"},
                        {game_over, "side not to move has no pieces"},
                        {crowded, "White has more than 12 pieces"},
                        {bad_side, "neither White nor Black"}};
  for (const Case& c : cases) {
    const char* why = unprobeable_reason(c.p);
    ASSERT_NE(why, nullptr) << c.why;
    EXPECT_NE(std::string(why).find(c.why), std::string::npos) << why;
    const Status s = probeable(c.p);
    EXPECT_EQ(s.code(), ErrorCode::InvalidPosition);
    EXPECT_EQ(s.message(), std::string("invalid position: ") + why);
  }
}

// A Tablebase over an empty folder: every probe of a probeable position is
// Unknown, and the errors say why, with their codes.
TEST(Probeable, StatusErrorsCarryTheirCodes) {
  const auto dir = std::filesystem::temp_directory_path() / ("damka-probe-status-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto tb = Tablebase::open(rules_of(Variant::Russian), dir);
  ASSERT_TRUE(tb.ok()) << tb.message();
  const Position p = at("W:WKa1,Kc3:BKh8");
  const ProbeResult r = (*tb)->probe(p, Metric::DTW);
  ASSERT_EQ(r.status, ProbeStatus::Unknown);
  const Error e = probe_status_error(**tb, p, r.status, Metric::DTW);
  EXPECT_EQ(e.code(), ErrorCode::NotFound);
  EXPECT_NE(e.message().find("no dtw table for"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("2Kv1K"), std::string::npos) << e.message();
  // Conditional: names the material, opens nothing.
  const Error c = probe_status_error(**tb, p, ProbeStatus::Unknown, Metric::WDL, ProbeMode::Conditional);
  EXPECT_EQ(c.message(), "no wdl table for 2Kv1K in " + (*tb)->directory().string());

  Position bad = p;
  bad.men[1] = bit(0);
  EXPECT_EQ((*tb)->probe(bad, Metric::WDL).status, ProbeStatus::Invalid);
  const Error i = probe_status_error(**tb, bad, ProbeStatus::Invalid, Metric::WDL);
  EXPECT_EQ(i.code(), ErrorCode::InvalidPosition);
  EXPECT_EQ(i.message(), probeable(bad).message());
  EXPECT_EQ(probe_status_error(**tb, p, ProbeStatus::Corrupt, Metric::WDL).code(), ErrorCode::Corrupt);
  EXPECT_EQ(probe_status_error(**tb, p, ProbeStatus::IoError, Metric::WDL).code(), ErrorCode::Io);
  // With the Tablebase: no table has 3 pieces here.
  const Status s = probeable(p, **tb);
  EXPECT_EQ(s.code(), ErrorCode::NotFound);
  EXPECT_NE(s.message().find("3 pieces"), std::string::npos) << s.message();
  std::filesystem::remove_all(dir);
}

TEST(PositionReportJson, RootMovesAndRanking) {
  EXPECT_STREQ(root_ranking_name(RootRanking::None), "none");
  EXPECT_STREQ(root_ranking_name(RootRanking::DTW), "dtw");
  EXPECT_STREQ(root_ranking_name(RootRanking::DTC), "dtc");
  const Rules& rules = rules_of(Variant::Russian);
  const Position p = at("W:WKa1:BKh8");
  MoveList moves;
  generate_moves(rules, p, moves);
  ASSERT_GE(moves.size(), 1u);
  RootMove known{moves[0], Value::win(0), Value::win(5), Value::win(3), true, true};
  RootMove unknown{moves[0], Value::draw(), Value::draw(), Value::draw(), false, false};
  const auto j = root_moves_json(rules, p, {known, unknown});
  const std::string text = move_to_string(rules, p, moves[0]);
  EXPECT_EQ(j.dump(), R"([{"move":")" + text + R"(","result":"win","dtw":5,"dtc":3},{"move":")" + text +
                          R"(","result":"draw","dtw":null,"dtc":null}])");
}

}  // namespace
}  // namespace damka
