// Root probing (Tablebase::probe_root, like Fathom's tb_probe_root): the
// moves that keep the value, against probe_moves' full list, with all
// metrics present, with WDL files alone and with WDL and DTC files.
#include <gtest/gtest.h>

#include <filesystem>

#include "damka/notation.hpp"
#include "damka/probe.hpp"
#include "damka/slots.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

// A copy of `from` keeping only the files with the given extensions.
std::filesystem::path copy_with(const std::filesystem::path& from, const std::string& name,
                                std::initializer_list<const char*> extensions) {
  const auto to = fresh_dir(name);
  for (const auto& e : std::filesystem::recursive_directory_iterator(from)) {
    if (!e.is_regular_file()) continue;
    for (const char* ext : extensions)
      if (e.path().extension() == ext) {
        const auto dest = to / std::filesystem::relative(e.path(), from);
        std::filesystem::create_directories(dest.parent_path());
        std::filesystem::copy_file(e.path(), dest);
      }
  }
  return to;
}

TEST(ProbeRoot, KeepsTheValueAndRanksByWhatIsPresent) {
  const Rules& r = rules_of(Variant::Russian);
  const auto full_dir = tables(Variant::Russian, 3);
  auto full = Tablebase::open(r, full_dir);
  auto wdl = Tablebase::open(r, copy_with(full_dir, "wdl_only", {".wdl"}));
  auto wdl_dtc = Tablebase::open(r, copy_with(full_dir, "wdl_dtc", {".wdl", ".dtc"}));
  ASSERT_TRUE(full && wdl && wdl_dtc);
  std::uint64_t positions = 0, wins = 0, dtc_from_wdl = 0;
  for (const Material& m : {Material{1, 1, 0, 1}, Material{0, 2, 0, 1}, Material{2, 0, 1, 0}, Material{2, 0, 0, 1}}) {
    const MaterialIndex index(m);
    for (std::uint64_t s = 0; s < table_slots(index); s += 7) {
      const Position p = position_at(index, s);
      const std::string fen = to_fen(r, p);
      std::vector<MoveValue> all;
      ASSERT_EQ((*full)->probe_moves(p, all), ProbeStatus::Ok) << fen;
      const ProbeResult v = (*full)->probe_wdl(p);
      ASSERT_TRUE(v.ok());
      // What the full list says: the moves whose value is the position's, in its order.
      std::vector<Move> want;
      for (const MoveValue& mv : all)
        if (mv.dtw.wdl == v.value.wdl) want.push_back(mv.move);
      ASSERT_EQ(want.empty(), all.empty()) << fen;
      wins += v.value.wdl == Wdl::Win;
      ++positions;

      std::vector<RootMove> got;
      RootRanking ranking;
      ASSERT_EQ((*full)->probe_root(p, got, ranking), ProbeStatus::Ok) << fen;
      ASSERT_EQ(got.size(), want.size()) << fen;
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_TRUE(got[i].move.same_result(want[i])) << fen << " move " << i;
        EXPECT_EQ(got[i].wdl, v.value.wdl_only()) << fen;
        EXPECT_TRUE(got[i].dtw_known && got[i].dtc_known) << fen;
      }
      EXPECT_EQ(ranking, got.empty() || v.value.wdl == Wdl::Draw ? RootRanking::None : RootRanking::DTW) << fen;

      // WDL files alone: the same moves (as a set); a distance is known only
      // where no distance table is needed (every line of captures ends with
      // a side without pieces; a capture position's DTC follows from its WDL,
      // capture_dtc) and is then right; ranked by DTW where every kept move's
      // DTW is known so, else by DTC where every DTC is, else unranked.
      std::vector<RootMove> w;
      ASSERT_EQ((*wdl)->probe_root(p, w, ranking), ProbeStatus::Ok) << fen;
      ASSERT_EQ(w.size(), want.size()) << fen;
      bool all_dtw = true, all_dtc = true;
      for (const RootMove& rm : w) {
        EXPECT_EQ(rm.wdl, v.value.wdl_only());
        all_dtw = all_dtw && rm.dtw_known;
        all_dtc = all_dtc && rm.dtc_known;
        const MoveValue* full_mv = nullptr;
        for (const MoveValue& mv : all)
          if (mv.move.same_result(rm.move)) full_mv = &mv;
        ASSERT_NE(full_mv, nullptr) << fen;
        if (rm.dtw_known) {
          EXPECT_EQ(rm.dtw, full_mv->dtw) << fen;
        }
        if (rm.dtc_known) {
          EXPECT_EQ(rm.dtc, full_mv->dtc) << fen;
        }
      }
      EXPECT_EQ(ranking, w.empty() || v.value.wdl == Wdl::Draw ? RootRanking::None
                         : all_dtw                               ? RootRanking::DTW
                         : all_dtc                               ? RootRanking::DTC
                                                                 : RootRanking::None)
          << fen;
      dtc_from_wdl += ranking == RootRanking::DTC;
      // WDL and DTC: ranked by DTC, best first.
      std::vector<RootMove> c;
      ASSERT_EQ((*wdl_dtc)->probe_root(p, c, ranking), ProbeStatus::Ok) << fen;
      ASSERT_EQ(c.size(), want.size()) << fen;
      bool c_all_dtw = true;
      for (const RootMove& rm : c) c_all_dtw = c_all_dtw && rm.dtw_known;  // only captures of the last piece
      EXPECT_EQ(ranking, c.empty() || v.value.wdl == Wdl::Draw ? RootRanking::None
                         : c_all_dtw                             ? RootRanking::DTW
                                                                 : RootRanking::DTC)
          << fen;
      for (std::size_t i = 0; i + 1 < c.size() && ranking == RootRanking::DTC; ++i) {
        EXPECT_FALSE(better_value(c[i + 1].dtc, c[i].dtc)) << fen;
      }
    }
  }
  EXPECT_GT(positions, 1000u);
  EXPECT_GT(wins, 100u);
  EXPECT_GT(dtc_from_wdl, 0u);  // WDL files ranked by DTC: every kept move leads to a capture position
}

TEST(ProbeRoot, MissingWdlTableIsUnknownAndTheGameOverIsInvalid) {
  const Rules& r = rules_of(Variant::Russian);
  auto tb = Tablebase::open(r, fresh_dir("empty_root"));
  ASSERT_TRUE(tb);
  auto p = parse_fen(r, "W:WKc3,e3:BKh8");
  ASSERT_TRUE(p.ok()) << p.message();
  std::vector<RootMove> out;
  RootRanking ranking;
  EXPECT_EQ((*tb)->probe_root(*p, out, ranking), ProbeStatus::Unknown);
  EXPECT_TRUE(out.empty());
  Position over = *p;
  over.men[1] = over.kings[1] = 0;
  EXPECT_EQ((*tb)->probe_root(over, out, ranking), ProbeStatus::Invalid);
}

}  // namespace
}  // namespace damka::probe_test
