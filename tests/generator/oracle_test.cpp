// The value oracle (value_oracle.hpp) against the solver's true values: for
// every position of every material of 2 to 4 pieces in all six variants
// (capture positions included), in WDL, DTW and DTC, the oracle reading
// tables whose capture positions' entries were overwritten with garbage
// must give exactly the value the solver stored for that position; and
// capture_wdl, one ply over the solver's values, likewise.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "damka/notation.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/value_oracle.hpp"

namespace damka {
namespace {

enum class Read : std::uint8_t { Ok = 0, Missing = 1 };

// Tables as a v2 file may hold them: derived entries hold garbage.
struct Poisoned {
  std::map<Material, SolvedTable> tables;
  std::uint64_t derived = 0;
};

Poisoned poison(const Rules& rules, const Solver& solver, int max_pieces) {
  Poisoned out;
  for (const Material& m : build_order(max_pieces)) {
    SolvedTable t = *solver.table(m);
    const MaterialIndex index(m);
    for (std::uint64_t s = 0; s < t.dtw.size(); ++s) {
      if (!is_derived(rules, position_at(index, s))) continue;
      ++out.derived;
      // Wrong in every metric: a value no true entry of these tables has.
      t.dtw[s] = Value::win(1000 + static_cast<int>(s % 7)).encode();
      t.dtc[s] = Value::loss(2000).encode();
    }
    out.tables.emplace(m, std::move(t));
  }
  return out;
}

// The solver's value of q for q's side to move in `metric` (WDL: plies 0).
Value true_value(const Solver& solver, const Position& q, Metric metric) {
  const TableSlot ts = locate(q);
  const SolvedTable& t = *solver.table(ts.material);
  const Value v = Value::decode(metric == Metric::DTC ? t.dtc[ts.slot] : t.dtw[ts.slot]);
  return metric == Metric::WDL ? v.wdl_only() : v;
}

class OracleVsSolver : public ::testing::TestWithParam<Variant> {};

TEST_P(OracleVsSolver, EveryPositionUpToFourPieces) {
  constexpr int kPieces = 4;
  const Rules& rules = rules_of(GetParam());
  Solver solver(rules, 2);
  for (const Material& m : build_order(kPieces)) solver.solve(m);
  const Poisoned poisoned = poison(rules, solver, kPieces);
  ASSERT_GT(poisoned.derived, 0u);

  std::uint64_t bad_reads = 0;  // lookups of positions the oracle must derive
  auto lookup_for = [&](Metric metric) {
    return [&, metric](const Position& q, Value& out) {
      if (q.pieces(Color::White) == 0 || q.pieces(Color::Black) == 0 || has_capture(rules, q)) ++bad_reads;
      const TableSlot ts = locate(q);
      auto it = poisoned.tables.find(ts.material);
      if (it == poisoned.tables.end()) return Read::Missing;
      out = Value::decode(metric == Metric::DTC ? it->second.dtc[ts.slot] : it->second.dtw[ts.slot]);
      if (metric == Metric::WDL) out = out.wdl_only();
      return Read::Ok;
    };
  };
  std::uint64_t checked = 0, captures = 0, mismatches = 0;
  // capture_wdl: one ply over successors' values already resolved (a table
  // held whole, as the statute report's plain WDL store holds them) gives
  // every capture position the solver's WDL, and a win stops at its first
  // winning capture: the successors asked are those before it and itself.
  auto truth_wdl = [&](const Position& q) { return true_value(solver, q, Metric::WDL); };
  MoveList moves;
  std::uint64_t one_ply_wins = 0;
  auto check_capture_wdl = [&](const Position& p) {
    if (!generate_capture_moves_if_any(rules, p, moves)) return;
    std::size_t asked = 0;
    Value got;
    const Read r = capture_wdl(p, moves, [&](const Position& q, Value& out) {
      EXPECT_GT(q.pieces(q.side_to_move), 0);
      out = truth_wdl(q);
      ++asked;
      return Read::Ok;
    }, got);
    ASSERT_EQ(r, Read::Ok);
    const Value want = truth_wdl(p);
    if (got != want && ++mismatches <= 10)
      ADD_FAILURE() << rules.name << " " << to_fen(rules, p) << ": capture_wdl " << got.encode() << ", solver "
                    << want.encode();
    std::size_t expected = 0;
    for (const Move& mv : moves) {
      const Position q = apply(p, mv);
      if (q.pieces(q.side_to_move) == 0) break;
      ++expected;
      if (truth_wdl(q).wdl == Wdl::Loss) break;
    }
    EXPECT_EQ(asked, expected) << to_fen(rules, p);
    one_ply_wins += want.wdl == Wdl::Win;
  };
  for (const Material& m : build_order(kPieces)) {
    const SolvedTable& truth = *solver.table(m);
    const MaterialIndex index(m);
    for (std::uint64_t s = 0; s < truth.dtw.size(); ++s) {
      const Position p = position_at(index, s);
      captures += has_capture(rules, p);
      check_capture_wdl(p);
      check_capture_wdl(p.flipped());
      for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) {
        Value want = Value::decode(metric == Metric::DTC ? truth.dtc[s] : truth.dtw[s]);
        if (metric == Metric::WDL) want = want.wdl_only();
        Value got;
        ASSERT_EQ(oracle_value(rules, p, metric, lookup_for(metric), got), Read::Ok) << to_fen(rules, p);
        if (got != want && ++mismatches <= 10)
          ADD_FAILURE() << rules.name << " " << m.name() << " " << to_fen(rules, p) << " " << metric_name(metric)
                        << ": oracle " << got.encode() << ", solver " << want.encode();
        // The colour-reversed image has the same value (a symmetric
        // material's Black-to-move positions are never stored).
        Value flipped;
        ASSERT_EQ(oracle_value(rules, p.flipped(), metric, lookup_for(metric), flipped), Read::Ok);
        if (flipped != want && ++mismatches <= 10)
          ADD_FAILURE() << "flipped " << to_fen(rules, p.flipped()) << " " << metric_name(metric);
        ++checked;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(bad_reads, 0u);
  EXPECT_GT(captures, 0u);
  EXPECT_GT(one_ply_wins, 0u);
  EXPECT_EQ(captures, poisoned.derived);
  EXPECT_GT(checked, 100000u);
}

INSTANTIATE_TEST_SUITE_P(AllVariants, OracleVsSolver, ::testing::ValuesIn(all_variants()),
                         [](const auto& info) { return std::string(rules_of(info.param).name); });

// One-side files (FORMAT.md 3.5): with the side Black to move left out of
// every distance table, the oracle's search gives the solver's values, and
// it reads no more distances than the answer needs, counted through the
// lookup: none for a draw, for a win only those of the successors lost for
// their side to move (all of them unless a win in 1 stops the search), for
// a loss every successor's.  Without the pruning a win reads every
// successor's distance and the counts below fail.  Up to 4 pieces in
// Russian and English (flying and short kings), 3 in the other variants.
class OracleOneSide : public ::testing::TestWithParam<Variant> {};

TEST_P(OracleOneSide, ReadsOnlyTheDistancesTheAnswerNeeds) {
  const Rules& rules = rules_of(GetParam());
  const int kPieces = GetParam() == Variant::Russian || GetParam() == Variant::English ? 4 : 3;
  Solver solver(rules, 2);
  for (const Material& m : build_order(kPieces)) solver.solve(m);
  auto truth = [&](const Position& q, Metric metric) { return true_value(solver, q, metric); };
  auto stores = [](const Position& q) { return q.side_to_move == Color::White; };
  // Every lookup reads a WDL entry (wdl_reads); those that return a
  // distance read a distance entry too.
  std::uint64_t wdl_reads = 0, distance_reads = 0, bad_reads = 0;
  Metric searched = Metric::DTW;
  auto lookup = [&](const Position& q, Ask ask, Value& out) {
    if (q.pieces(Color::White) == 0 || q.pieces(Color::Black) == 0 || has_capture(rules, q)) ++bad_reads;
    ++wdl_reads;
    const bool distance = ask == Ask::Value || (ask == Ask::IfLost && truth(q, Metric::WDL).wdl == Wdl::Loss);
    if (distance && !stores(q)) ++bad_reads;  // a distance the file does not hold
    distance_reads += distance;
    out = truth(q, distance ? searched : Metric::WDL);
    return Read::Ok;
  };
  std::uint64_t checked = 0, mismatches = 0, wins = 0, losses = 0, draws = 0, pruned = 0;
  MoveList moves;
  for (const Material& m : build_order(kPieces)) {
    const MaterialIndex index(m);
    for (std::uint64_t s = 0; s < table_slots(index); ++s) {
      for (const Position& p : {position_at(index, s), position_at(index, s).flipped()}) {
        if (p.pieces(Color::White) == 0 || p.pieces(Color::Black) == 0) continue;
        for (Metric metric : {Metric::DTW, Metric::DTC}) {
          wdl_reads = distance_reads = 0;
          searched = metric;
          Value got;
          ASSERT_EQ(oracle_value(rules, p, metric, lookup, stores, got), Read::Ok) << to_fen(rules, p);
          const Value want = truth(p, metric);
          if (got != want && ++mismatches <= 10)
            ADD_FAILURE() << rules.name << " " << to_fen(rules, p) << " " << metric_name(metric) << ": oracle "
                          << got.encode() << ", solver " << want.encode();
          ++checked;
          // The counts, for a left-out position whose every successor is
          // stored (White to move, no capture, both sides with pieces).
          if (stores(p) || has_capture(rules, p)) continue;
          generate_moves(rules, p, moves);
          bool all_stored = true;
          std::uint64_t lost = 0;
          for (const Move& mv : moves) {
            const Position q = apply(p, mv);
            all_stored = all_stored && q.pieces(Color::White) != 0 && q.pieces(Color::Black) != 0 &&
                         !has_capture(rules, q);
            if (all_stored) lost += truth(q, Metric::WDL).wdl == Wdl::Loss;
          }
          if (!all_stored) continue;
          switch (want.wdl) {
            case Wdl::Draw:
              ++draws;
              EXPECT_EQ(distance_reads, 0u) << to_fen(rules, p);
              EXPECT_EQ(wdl_reads, 1u) << to_fen(rules, p);
              break;
            case Wdl::Loss:
              ++losses;
              EXPECT_EQ(distance_reads, moves.size()) << to_fen(rules, p);
              EXPECT_EQ(wdl_reads, 1 + moves.size()) << to_fen(rules, p);
              break;
            case Wdl::Win:
              ++wins;
              if (want.plies > 1) {  // else a win in 1 may stop the search early
                EXPECT_EQ(wdl_reads, 1 + moves.size()) << to_fen(rules, p);
                EXPECT_EQ(distance_reads, lost) << to_fen(rules, p) << " " << metric_name(metric);
              }
              EXPECT_LE(wdl_reads, 1 + moves.size()) << to_fen(rules, p);
              EXPECT_LE(distance_reads, lost) << to_fen(rules, p) << " " << metric_name(metric);
              EXPECT_GE(distance_reads, 1u) << to_fen(rules, p);
              pruned += distance_reads < moves.size();
              break;
          }
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(bad_reads, 0u);
  EXPECT_GT(checked, 10000u);
  EXPECT_GT(draws + losses, 0u);
  EXPECT_GT(wins, 0u);
  EXPECT_GT(pruned, 0u) << "some wins have a move that does not win";
  std::printf("%s: %llu wins, %llu of them with a move that does not win\n", std::string(rules.name).c_str(),
              static_cast<unsigned long long>(wins), static_cast<unsigned long long>(pruned));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, OracleOneSide, ::testing::ValuesIn(all_variants()),
                         [](const auto& info) { return std::string(rules_of(info.param).name); });

// Values known outright (a reader's resident tables, which hold capture
// positions' values too): with the materials of up to 3 pieces known from
// the solver's tables and every other entry read from tables whose derived
// entries are garbage, the oracle gives every 4-piece position the
// solver's value in every metric, asks `known` about successors only (never
// the position given), and never looks up or searches a known material's
// position (without the hook the lookup is asked about them and the
// lookup count below fails).
class OracleKnown : public ::testing::TestWithParam<Variant> {};

TEST_P(OracleKnown, KnownValuesAreNeitherLookedUpNorSearched) {
  constexpr int kPieces = 4;
  const Rules& rules = rules_of(GetParam());
  Solver solver(rules, 2);
  for (const Material& m : build_order(kPieces)) solver.solve(m);
  const Poisoned poisoned = poison(rules, solver, kPieces);
  auto truth = [&](const Position& q, Metric metric) { return true_value(solver, q, metric); };
  Metric searched = Metric::DTW;
  std::uint64_t known_lookups = 0, bad_reads = 0, known_asked = 0, asked_self = 0;
  Position given;
  auto lookup = [&](const Position& q, Ask ask, Value& out) {
    if (q.count() < kPieces) ++known_lookups;
    if (q.pieces(Color::White) == 0 || q.pieces(Color::Black) == 0 || has_capture(rules, q)) ++bad_reads;
    const TableSlot ts = locate(q);
    const SolvedTable& t = poisoned.tables.at(ts.material);
    out = Value::decode(searched == Metric::DTC ? t.dtc[ts.slot] : t.dtw[ts.slot]);
    if (searched == Metric::WDL || ask == Ask::Wdl || (ask == Ask::IfLost && out.wdl != Wdl::Loss))
      out = out.wdl_only();
    return Read::Ok;
  };
  auto every = [](const Position&) { return true; };
  auto known = [&](const Position& q, Ask ask, Value& out) {
    if (q == given) ++asked_self;
    if (q.count() >= kPieces) return false;
    ++known_asked;
    out = truth(q, searched);
    if (ask == Ask::Wdl || (ask == Ask::IfLost && out.wdl != Wdl::Loss)) out = out.wdl_only();
    return true;
  };
  std::uint64_t checked = 0, mismatches = 0;
  for (const Material& m : build_order(kPieces)) {
    if (m.pieces() != kPieces) continue;
    const MaterialIndex index(m);
    for (std::uint64_t s = 0; s < table_slots(index); ++s) {
      given = position_at(index, s);
      for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) {
        searched = metric;
        Value got;
        ASSERT_EQ(oracle_value(rules, given, metric, lookup, every, known, got), Read::Ok) << to_fen(rules, given);
        if (got != truth(given, metric) && ++mismatches <= 10)
          ADD_FAILURE() << rules.name << " " << to_fen(rules, given) << " " << metric_name(metric) << ": oracle "
                        << got.encode() << ", solver " << truth(given, metric).encode();
        ++checked;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(bad_reads, 0u);
  EXPECT_EQ(known_lookups, 0u);
  EXPECT_EQ(asked_self, 0u);
  EXPECT_GT(known_asked, 0u);
  EXPECT_GT(checked, 10000u);
}

INSTANTIATE_TEST_SUITE_P(AllVariants, OracleKnown, ::testing::ValuesIn(all_variants()),
                         [](const auto& info) { return std::string(rules_of(info.param).name); });

// The first position of a material (by slot) where the side to move must capture.
Position first_capture_position(const Rules& rules, const Material& m) {
  const MaterialIndex index(m);
  for (std::uint64_t s = 0; s < table_slots(index); ++s)
    if (has_capture(rules, position_at(index, s))) return position_at(index, s);
  ADD_FAILURE() << "no capture position in " << m.name();
  return {};
}

TEST(Oracle, CapturingTheLastPieceWins) {
  const Rules& rules = rules_of(Variant::Russian);
  const Position p = first_capture_position(rules, Material{0, 1, 0, 1});  // king v king: the capture ends the game
  int calls = 0;
  Value v;
  const auto s = oracle_value(rules, p, Metric::DTW, [&](const Position&, Value&) { ++calls; return Read::Ok; }, v);
  EXPECT_EQ(s, Read::Ok);
  EXPECT_EQ(v, Value::win(1)) << to_fen(rules, p);
  EXPECT_EQ(calls, 0);
}

TEST(Oracle, MissingTableStopsTheSearchWithTheLookupsStatus) {
  const Rules& rules = rules_of(Variant::Russian);
  const Position p = first_capture_position(rules, Material{0, 2, 0, 2});  // successors have 3 pieces
  int calls = 0;
  Value v;
  const auto s = oracle_value(rules, p, Metric::WDL, [&](const Position& q, Value&) {
    ++calls;
    EXPECT_FALSE(has_capture(rules, q));
    return Read::Missing;
  }, v);
  EXPECT_EQ(s, Read::Missing) << to_fen(rules, p);
  EXPECT_EQ(calls, 1);
}

TEST(Oracle, MoveValueTurnsTheSuccessorsValueIntoTheMovers) {
  EXPECT_EQ(move_value(Value::loss(4), Metric::DTW, false), Value::win(5));
  EXPECT_EQ(move_value(Value::win(4), Metric::DTW, true), Value::loss(5));
  EXPECT_EQ(move_value(Value::loss(4), Metric::DTC, true), Value::win(1));
  EXPECT_EQ(move_value(Value::loss(4), Metric::DTC, false), Value::win(5));
  EXPECT_EQ(move_value(Value::draw(), Metric::DTW, false), Value::draw());
  EXPECT_EQ(move_value(Value::loss(0), Metric::WDL, false), Value::win(0));
  EXPECT_TRUE(better_value(Value::win(3), Value::win(5)));
  EXPECT_TRUE(better_value(Value::loss(9), Value::loss(3)));
  EXPECT_TRUE(better_value(Value::draw(), Value::loss(9)));
  EXPECT_FALSE(better_value(Value::draw(), Value::draw()));
}

}  // namespace
}  // namespace damka
