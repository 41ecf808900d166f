// The probe against the generator's in-memory Solver: every position of
// several 3- and 4-piece tables of different variants, both sides to move and
// colour-flipped, in WDL, DTW and DTC (capture positions included); the move
// lists and principal variations of a sample of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>

#include "damka/notation.hpp"
#include "damka/probe.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

constexpr Metric kMetrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};

struct Tally {
  std::uint64_t positions = 0, captures = 0, mismatches = 0, moves_checked = 0, pvs_checked = 0;
};

std::string value_text(const std::optional<Value>& v) {
  return v ? describe_value(*v, Metric::DTW) : std::string("none");
}

// Every move's value against the solver's values of the successors; the
// order; the position's own DTW and DTC against the moves'.
void check_moves(const Tablebase& tb, const Solver& s, const Position& p, Tally& t) {
  const Rules& r = tb.rules();
  std::vector<MoveValue> mv;
  ASSERT_EQ(tb.probe_moves(p, mv), ProbeStatus::Ok) << to_fen(r, p);
  MoveList legal;
  generate_moves(r, p, legal);
  ASSERT_EQ(mv.size(), legal.size()) << to_fen(r, p);
  for (std::size_t i = 0; i < mv.size(); ++i) {
    const Position q = apply(p, mv[i].move);
    const bool conv = mv[i].move.is_capture() || mv[i].move.promotes;
    const auto w = s.value(q, Metric::DTW), c = s.value(q, Metric::DTC);
    ASSERT_TRUE(w && c) << to_fen(r, q);
    EXPECT_EQ(mv[i].dtw, move_value(*w, Metric::DTW, conv)) << to_fen(r, p) << " " << move_to_string(r, p, mv[i].move);
    EXPECT_TRUE(mv[i].dtc_known);
    EXPECT_EQ(mv[i].dtc, move_value(*c, Metric::DTC, conv)) << to_fen(r, p) << " " << move_to_string(r, p, mv[i].move);
    if (i > 0) {
      EXPECT_FALSE(better_value(mv[i].dtw, mv[i - 1].dtw)) << to_fen(r, p);
    }
  }
  const auto pw = s.value(p, Metric::DTW), pc = s.value(p, Metric::DTC);
  if (mv.empty()) {
    EXPECT_EQ(*pw, Value::loss(0));
  } else {
    EXPECT_EQ(mv.front().dtw, *pw) << to_fen(r, p);
    // DTC: a win converts as soon as it can among the winning moves, a loss
    // delays as long as it can.
    Value best_dtc = Value::draw();
    bool first = true;
    for (const MoveValue& m : mv) {
      if (m.dtw.wdl != pw->wdl) continue;
      if (first || (pw->wdl == Wdl::Win ? m.dtc.plies < best_dtc.plies : m.dtc.plies > best_dtc.plies))
        best_dtc = m.dtc;
      first = false;
    }
    EXPECT_EQ(best_dtc, *pc) << to_fen(r, p);
  }
  ++t.moves_checked;
}

// A decisive position's line: as long as its DTW, alternating, ending with
// the loser to move and unable to move.
void check_pv(const Tablebase& tb, const Solver& s, const Position& p, Tally& t) {
  const Rules& r = tb.rules();
  const auto pw = s.value(p, Metric::DTW);
  std::vector<Move> pv;
  ASSERT_EQ(tb.principal_variation(p, pv), ProbeStatus::Ok) << to_fen(r, p);
  if (pw->wdl == Wdl::Draw) {
    EXPECT_TRUE(pv.empty());
    return;
  }
  ASSERT_EQ(pv.size(), pw->plies) << to_fen(r, p);
  Position q = p;
  for (std::size_t i = 0; i < pv.size(); ++i) {
    const auto v = s.value(q, Metric::DTW);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->plies, pw->plies - i);
    EXPECT_EQ(v->wdl, (i % 2 == 0) ? pw->wdl : (pw->wdl == Wdl::Win ? Wdl::Loss : Wdl::Win));
    q = apply(q, pv[i]);
  }
  MoveList legal;
  if (q.pieces(q.side_to_move) != 0) generate_moves(r, q, legal);
  EXPECT_TRUE(legal.empty()) << "line does not end the game: " << to_fen(r, q);
  ++t.pvs_checked;
}

void compare_material(const Tablebase& tb, const Solver& s, const Material& m, Tally& t) {
  const Rules& r = tb.rules();
  const MaterialIndex idx(m);
  const std::uint64_t n = table_slots(idx);
  for (std::uint64_t slot = 0; slot < n; ++slot) {
    const Position p = position_at(idx, slot);
    for (const Position& q : {p, p.flipped()}) {
      ++t.positions;
      if (has_capture(r, q)) ++t.captures;
      for (Metric metric : kMetrics) {
        const ProbeResult got = tb.probe(q, metric);
        const auto want = s.value(q, metric);
        if (!want || !got.ok() || got.value != *want) {
          if (++t.mismatches <= 10)
            ADD_FAILURE() << m.name() << " " << to_fen(r, q) << " " << metric_name(metric) << ": probe "
                          << probe_status_name(got.status) << " " << describe_value(got.value, Metric::DTW)
                          << ", solver " << value_text(want);
        }
      }
    }
    if (slot % 41 == 0) check_moves(tb, s, p, t);
    if (slot % 409 == 0) check_pv(tb, s, p.flipped(), t);
  }
}

struct Case {
  Variant variant;
  int max_pieces;
  const char* only;                   // or nullptr
  std::vector<const char*> materials;  // to compare; empty = every material of up to max_pieces
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << rules_of(c.variant).name << "_" << c.max_pieces << (c.only ? std::string("_") + c.only : "");
}

class ProbeVsSolver : public ::testing::TestWithParam<Case> {};

TEST_P(ProbeVsSolver, EveryPosition) {
  const Case& c = GetParam();
  const Rules& r = rules_of(c.variant);
  std::optional<Material> only;
  if (c.only) only = mat(c.only);
  const auto& dir = tables(c.variant, c.max_pieces, only);
  auto tb = Tablebase::open(r, dir);
  ASSERT_TRUE(tb.ok()) << tb.message();
  Solver& s = solver(c.variant);
  std::vector<Material> ms;
  if (c.materials.empty()) {
    ms = build_order(c.max_pieces);
  } else {
    for (const char* name : c.materials) ms.push_back(mat(name));
  }
  Tally t;
  for (const Material& m : ms) {
    s.solve(m);
    compare_material(**tb, s, m, t);
  }
  EXPECT_EQ(t.mismatches, 0u);
  EXPECT_GT(t.captures, 0u);
  EXPECT_TRUE((*tb)->errors().empty());
  std::printf("%s: %llu positions (%llu with a capture), %llu move lists, %llu lines; cache %llu hits, %llu reads\n",
              std::string(r.name).c_str(), static_cast<unsigned long long>(t.positions),
              static_cast<unsigned long long>(t.captures), static_cast<unsigned long long>(t.moves_checked),
              static_cast<unsigned long long>(t.pvs_checked),
              static_cast<unsigned long long>((*tb)->cache_stats().hits),
              static_cast<unsigned long long>((*tb)->cache_stats().reads));
}

INSTANTIATE_TEST_SUITE_P(
    Tables, ProbeVsSolver,
    ::testing::Values(Case{Variant::Russian, 3, nullptr, {}},
                      Case{Variant::Russian, 3, "3Kv1K", {"3Kv1K"}},
                      Case{Variant::Brazilian, 3, nullptr, {}},
                      Case{Variant::Thai, 3, nullptr, {}},
                      Case{Variant::English, 3, nullptr, {}},
                      Case{Variant::English, 3, "2Kv2K", {"2Kv2K"}},
                      Case{Variant::Mozambique, 3, "2Kv2K", {"2Kv1K", "2Kv2K"}}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string s = std::string(rules_of(info.param.variant).name) + "_" + std::to_string(info.param.max_pieces);
      if (info.param.only) s += std::string("_") + info.param.only;
      return s;
    });

// Tables that store nonsense for every position with a capture: the probe
// never reads those entries, so its answers stay exact.
TEST(ProbeCaptures, AnsweredWhateverTheTableStores) {
  const Rules& r = rules_of(Variant::Russian);
  const auto dir = copy_tables(tables(Variant::Russian, 3), r, "garbage");
  Solver& s = solver(Variant::Russian);
  std::uint64_t rewritten = 0;
  for (const Material& m : build_order(3)) {
    s.solve(m);
    const MaterialIndex idx(m);
    for (Metric metric : kMetrics) {
      const auto path = table_path(dir, r, m, metric);
      std::vector<std::uint16_t> codes, block;
      {
        auto reader = TableReader::open(path);
        ASSERT_TRUE(reader.ok()) << reader.message();
        for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
          ASSERT_TRUE((*reader)->read_block(b, block).ok());
          codes.insert(codes.end(), block.begin(), block.end());
        }
      }
      for (std::uint64_t slot = 0; slot < codes.size(); ++slot) {
        if (!has_capture(r, position_at(idx, slot))) continue;
        // The opposite result (a draw for decisive values), far distances.
        const Value v = Value::decode(codes[slot]);
        const Value bad = v.wdl == Wdl::Draw ? Value::win(metric == Metric::WDL ? 0 : 99)
                          : v.wdl == Wdl::Win ? Value::draw()
                                              : Value::win(metric == Metric::WDL ? 0 : 77);
        codes[slot] = bad.encode();
        ++rewritten;
      }
      WriteOptions wo;
      wo.threads = 1;  // no OpenMP team (keeps ThreadSanitizer runs about the probe)
      ASSERT_TRUE(write_table(path, default_table_header(r, m, metric), codes, wo).ok());
    }
  }
  ASSERT_GT(rewritten, 1000u);
  auto tb = Tablebase::open(r, dir);
  ASSERT_TRUE(tb.ok());
  Tally t;
  for (const Material& m : build_order(3)) compare_material(**tb, s, m, t);
  EXPECT_EQ(t.mismatches, 0u);
}

}  // namespace
}  // namespace damka::probe_test
