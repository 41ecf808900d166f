// Tests of the brute-force reference solver itself: hand-computed values and
// the defining equations checked on whole materials.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "damka/movegen.hpp"
#include "damka/notation.hpp"
#include "generator/brute_force.hpp"

namespace damka::brute {
namespace {

Position fen(const Rules& r, const std::string& text) {
  auto p = parse_fen(r, text);
  if (!p.ok()) {
    ADD_FAILURE() << "bad FEN " << text << ": " << p.message();
    return Position{};
  }
  return *p;
}

// Solves everything reachable from one position and returns its values.
struct Solved {
  Value dtw, dtc;
};
Solved solve_one(Variant v, const std::string& text) {
  const Rules& r = rules_of(v);
  const Position p = fen(r, text);
  const BruteForce bf(r, std::vector<Position>{p});
  EXPECT_EQ(bf.stats().dtc_missing, 0u) << text;
  return {bf.dtw(p).value(), bf.dtc(p).value()};
}

#define EXPECT_VALUES(variant, text, want_dtw, want_dtc)                                           \
  do {                                                                                            \
    const Solved s_ = solve_one(variant, text);                                                   \
    EXPECT_EQ(to_string(s_.dtw), to_string(want_dtw)) << rules_of(variant).name << " " << text << " DTW"; \
    EXPECT_EQ(to_string(s_.dtc), to_string(want_dtc)) << rules_of(variant).name << " " << text << " DTC"; \
  } while (0)

// ---------------------------------------------------------------------------
// Enumeration.

TEST(BruteEnumerate, Counts) {
  EXPECT_EQ(enumerate_positions({0, 1, 0, 1}, Color::White).size(), 32u * 31u);
  // White men on rows 1-7 (28 squares), black men on rows 2-8 (28), 24 shared.
  EXPECT_EQ(enumerate_positions({1, 0, 1, 0}, Color::Black).size(), 28u * 28u - 24u);
  EXPECT_EQ(enumerate_positions({0, 2, 0, 1}, Color::White).size(), 496u * 30u);
  EXPECT_EQ(enumerate_positions({2, 0, 0, 0}, Color::White).size(), 378u);  // C(28, 2)
  EXPECT_EQ(enumerate_positions({1, 1, 0, 1}).size(), 2u * 28u * 31u * 30u);
}

TEST(BruteEnumerate, DistinctValidAndOfTheMaterial) {
  const Counts c{1, 1, 1, 0};
  const auto all = enumerate_positions(c);
  std::set<std::tuple<Bitboard, Bitboard, Bitboard, Bitboard, int>> seen;
  for (const Position& p : all) {
    ASSERT_TRUE(p.is_valid());
    ASSERT_EQ(popcount(p.men[0]), 1);
    ASSERT_EQ(popcount(p.kings[0]), 1);
    ASSERT_EQ(popcount(p.men[1]), 1);
    ASSERT_EQ(popcount(p.kings[1]), 0);
    seen.insert({p.men[0], p.men[1], p.kings[0], p.kings[1], static_cast<int>(p.side_to_move)});
  }
  EXPECT_EQ(seen.size(), all.size());
  // White man on row 1 (4 squares): the king on another row-1 square (3) or
  // on rows 2-8 (28), the black man on rows 2-8 off the king.  White man on
  // rows 2-7 (24): the king on row 1 (4) or rows 2-8 (27), the black man on
  // rows 2-8 off both.
  EXPECT_EQ(all.size(), 2u * (4u * (3u * 28u + 28u * 27u) + 24u * (4u * 27u + 27u * 26u)));
  EXPECT_EQ(Counts({1, 2, 0, 1}).name(), "KKMvK");
}

TEST(BruteEnumerate, RootsComeFirst) {
  const Counts c{0, 1, 0, 1};
  const BruteForce bf(rules_of(Variant::Russian), c);
  EXPECT_EQ(bf.num_roots(), 2u * 32u * 31u);
  EXPECT_EQ(bf.positions_of_root_material(), enumerate_positions(c));
  // K v K reaches K v nothing and nothing v K after a capture.
  EXPECT_GT(bf.size(), bf.num_roots());
}

// ---------------------------------------------------------------------------
// Hand-computed values.

TEST(BruteValues, NoLegalMoveLosesInZero) {
  // The white man on a1 can neither step to b2 nor jump it (c3 is taken).
  EXPECT_VALUES(Variant::Russian, "W:Wa1:Bb2,c3", Value::loss(0), Value::loss(0));
  EXPECT_VALUES(Variant::English, "W:Wa1:Bb2,c3", Value::loss(0), Value::loss(0));
}

TEST(BruteValues, NoPiecesLosesInZero) {
  Position p;
  p.men[idx(Color::White)] = bit(square_at(2, 2));  // c3
  p.side_to_move = Color::Black;
  for (Variant v : all_variants()) {
    const BruteForce bf(rules_of(v), std::vector<Position>{p});
    EXPECT_EQ(bf.dtw(p), Value::loss(0)) << rules_of(v).name;
    EXPECT_EQ(bf.dtc(p), Value::loss(0)) << rules_of(v).name;
    // With White to move, any move leaves Black (no pieces) to move: win in 1,
    // and the quiet move costs 1 + 0 plies of DTC.
    Position w = p;
    w.side_to_move = Color::White;
    const BruteForce bw(rules_of(v), std::vector<Position>{w});
    EXPECT_EQ(bw.dtw(w), Value::win(1)) << rules_of(v).name;
    EXPECT_EQ(bw.dtc(w), Value::win(1)) << rules_of(v).name;
  }
}

TEST(BruteValues, CaptureOfTheLastPieceWinsInOne) {
  // Flying king a1 takes c3 and lands anywhere on d4..h8.
  EXPECT_VALUES(Variant::Russian, "W:WKa1:BKc3", Value::win(1), Value::win(1));
  EXPECT_VALUES(Variant::Brazilian, "W:WKa1:BKc3", Value::win(1), Value::win(1));
  EXPECT_VALUES(Variant::Thai, "W:WKa1:BKd4", Value::win(1), Value::win(1));
  // Men capture backward in Russian, not in Thai or English.
  EXPECT_VALUES(Variant::Russian, "W:Wd4:Bc3", Value::win(1), Value::win(1));
  EXPECT_NE(solve_one(Variant::Thai, "W:Wd4:Bc3").dtw, Value::win(1));
  EXPECT_NE(solve_one(Variant::English, "W:Wd4:Bc3").dtw, Value::win(1));
}

TEST(BruteValues, EnglishShortKingIsCapturedInstead) {
  // English: the king on a1 can only step to b2, where c3 jumps it back to a1.
  EXPECT_VALUES(Variant::English, "W:WKa1:BKc3", Value::loss(2), Value::loss(2));
  EXPECT_VALUES(Variant::English, "B:WKb2:BKc3", Value::win(1), Value::win(1));
  // The same squares in numeric notation (a1 = 29, c3 = 22).
  EXPECT_VALUES(Variant::English, "W:WK29:BK22", Value::loss(2), Value::loss(2));
}

TEST(BruteValues, KingInTheCornerOfTheMainRoadIsLost) {
  // Kings on a1 and h8: the side to move must step along the main road and
  // is taken from the other corner (a quiet move, then a capture: DTC 2).
  for (Variant v : {Variant::Russian, Variant::Brazilian, Variant::Thai}) {
    EXPECT_VALUES(v, "W:WKa1:BKh8", Value::loss(2), Value::loss(2));
    EXPECT_VALUES(v, "B:WKa1:BKh8", Value::loss(2), Value::loss(2));
  }
  // Short kings do not reach: not lost.
  EXPECT_NE(solve_one(Variant::English, "W:WKa1:BKh8").dtw.wdl, Wdl::Loss);
}

TEST(BruteValues, PromotionIsAConversion) {
  // g7-h8 makes a king on h8 facing the king on a1 with Black to move: Black
  // loses in 2, so White wins in 3; the promotion itself ends the DTC count.
  for (Variant v : {Variant::Russian, Variant::Brazilian, Variant::Thai}) {
    EXPECT_VALUES(v, "W:Wg7:BKa1", Value::win(3), Value::win(1));
    // Black to move takes the man along the main road.
    EXPECT_VALUES(v, "B:Wg7:BKa1", Value::win(1), Value::win(1));
  }
}

TEST(BruteValues, PromotionDuringCapture) {
  // Russian: b6:d8 promotes and continues as a king over f6 (both taken).
  EXPECT_VALUES(Variant::Russian, "W:Wb6:Bc7,f6", Value::win(1), Value::win(1));
  // Brazilian: b6:d8 promotes and stops; f6 remains.
  EXPECT_NE(solve_one(Variant::Brazilian, "W:Wb6:Bc7,f6").dtw, Value::win(1));
  // Brazilian: b6:d8:f6 continues as a man and takes both.
  EXPECT_VALUES(Variant::Brazilian, "W:Wb6:Bc7,e7", Value::win(1), Value::win(1));
  // English: b6xd8 promotes and the move ends; e7 remains.
  EXPECT_NE(solve_one(Variant::English, "W:Wb6:Bc7,e7").dtw, Value::win(1));
}

// ---------------------------------------------------------------------------
// The defining equations, checked node by node on whole materials.

void check_equations(const BruteForce& bf) {
  ASSERT_EQ(bf.stats().dtc_missing, 0u);
  int failures = 0;
  for (std::size_t u = 0; u < bf.size() && failures < 5; ++u) {
    const auto succ = bf.successors(u);
    const Value dtw = bf.dtw_of_node(u), dtc = bf.dtc_of_node(u);
    // DTW from the successors' DTW.
    Value want_dtw = Value::loss(0);
    if (!succ.empty()) {
      int best_win = -1, longest_loss = -1;
      bool all_wins = true;
      for (const auto& e : succ) {
        const Value s = bf.dtw_of_node(e.to);
        if (s.wdl == Wdl::Loss && (best_win < 0 || s.plies + 1 < best_win)) best_win = s.plies + 1;
        if (s.wdl != Wdl::Win) all_wins = false;
        else longest_loss = std::max(longest_loss, s.plies + 1);
      }
      want_dtw = best_win >= 0 ? Value::win(best_win) : all_wins ? Value::loss(longest_loss) : Value::draw();
    }
    // DTC from the successors' DTC.
    Value want_dtc = Value::draw();
    if (succ.empty()) {
      want_dtc = Value::loss(0);
    } else if (want_dtw.wdl == Wdl::Win) {
      int best = 1 << 30;
      for (const auto& e : succ)
        if (bf.dtw_of_node(e.to).wdl == Wdl::Loss)
          best = std::min(best, e.conversion ? 1 : 1 + bf.dtc_of_node(e.to).plies);
      want_dtc = Value::win(best);
    } else if (want_dtw.wdl == Wdl::Loss) {
      int worst = 0;
      for (const auto& e : succ) worst = std::max(worst, e.conversion ? 1 : 1 + bf.dtc_of_node(e.to).plies);
      want_dtc = Value::loss(worst);
    }
    const bool all_conversions =
        !succ.empty() && std::all_of(succ.begin(), succ.end(), [](const auto& e) { return e.conversion; });
    const bool ok = dtw == want_dtw && dtc == want_dtc && dtc.wdl == dtw.wdl && dtc.plies <= dtw.plies &&
                    (dtw.wdl != Wdl::Win || dtw.plies % 2 == 1) && (dtw.wdl != Wdl::Loss || dtw.plies % 2 == 0) &&
                    (!all_conversions || dtw.wdl == Wdl::Draw || dtc.plies == 1);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << to_fen(bf.rules(), bf.position(u)) << ": dtw " << to_string(dtw) << " (equations "
                    << to_string(want_dtw) << "), dtc " << to_string(dtc) << " (equations " << to_string(want_dtc)
                    << ")";
    }
  }
}

class BruteEquations : public ::testing::TestWithParam<Variant> {};

TEST_P(BruteEquations, KingsTwoVersusOne) {
  const BruteForce bf(rules_of(GetParam()), Counts{0, 2, 0, 1});
  check_equations(bf);
  // Two kings against one win at least sometimes, and the solver got deep.
  EXPECT_GT(bf.stats().wins, 0u);
  EXPECT_GT(bf.stats().dtw_iterations, 2);
}

TEST_P(BruteEquations, ManAndKingVersusMan) {
  check_equations(BruteForce(rules_of(GetParam()), Counts{1, 1, 1, 0}));
}

TEST_P(BruteEquations, KingVersusKingIsSymmetric) {
  const BruteForce bf(rules_of(GetParam()), Counts{0, 1, 0, 1});
  check_equations(bf);
  for (const Position& p : bf.positions_of_root_material()) {
    ASSERT_EQ(bf.dtw(p), bf.dtw(p.flipped())) << to_fen(bf.rules(), p);
    ASSERT_EQ(bf.dtc(p), bf.dtc(p.flipped())) << to_fen(bf.rules(), p);
  }
  // Mostly draws: a lone king is caught only by an immediate tactic.
  EXPECT_GT(bf.stats().draws, bf.stats().wins + bf.stats().losses);
}

INSTANTIATE_TEST_SUITE_P(AllVariants, BruteEquations, ::testing::ValuesIn(all_variants().begin(), all_variants().end()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(rules_of(info.param).name);
                         });

}  // namespace
}  // namespace damka::brute
