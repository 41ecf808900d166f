// The probe's behaviour beyond plain values: missing tables answer Unknown,
// corrupt files are reported once and then treated as missing, conditional
// probes never read, the cache stays in its budget, invalid positions, the
// C API from C++.
#include <gtest/gtest.h>

#include <atomic>

#include "damka.h"
#include "damka/notation.hpp"
#include "damka/probe.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

const Rules& russian() { return rules_of(Variant::Russian); }

Position fen(const char* text) {
  auto p = parse_fen(russian(), text);
  EXPECT_TRUE(p.ok()) << text << ": " << p.message();
  return *p;
}

std::unique_ptr<Tablebase> open_tb(const std::filesystem::path& dir, TablebaseOptions opt = {}) {
  auto tb = Tablebase::open(russian(), dir, std::move(opt));
  EXPECT_TRUE(tb.ok()) << tb.message();
  return tb.ok() ? std::move(*tb) : nullptr;
}

TEST(Probe, OpenRefusesAMissingDirectory) {
  auto tb = Tablebase::open(russian(), scratch_root() / "no_such_dir");
  ASSERT_FALSE(tb.ok());
  EXPECT_NE(tb.message().find("no such directory"), std::string::npos);
}

TEST(Probe, EmptyDirectoryAnswersUnknown) {
  auto tb = open_tb(fresh_dir("empty"));
  ASSERT_TRUE(tb);
  EXPECT_EQ(tb->max_pieces(), 0);
  EXPECT_EQ(tb->probe(fen("W:WKa1:BKh8"), Metric::WDL).status, ProbeStatus::Unknown);
  EXPECT_EQ(tb->missing_tables(fen("W:WKa1:BKh8"), Metric::WDL), std::vector<Material>{mat("1Kv1K")});
  // The side to move without pieces needs no table.
  Position bare;
  bare.kings[0] = bit(0);
  bare.side_to_move = Color::Black;
  const ProbeResult r = tb->probe(bare, Metric::DTW);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.value, Value::loss(0));
}

TEST(Probe, InvalidPositions) {
  auto tb = open_tb(tables(Variant::Russian, 3));
  Position p;
  p.kings[0] = bit(0);
  EXPECT_EQ(tb->probe(p, Metric::WDL).status, ProbeStatus::Invalid);  // Black has no pieces, White to move
  p.kings[1] = bit(0);
  EXPECT_EQ(tb->probe(p, Metric::WDL).status, ProbeStatus::Invalid);  // two pieces on a1
  p.kings[1] = 0;
  p.men[1] = bit(0);  // a black man on its promotion row
  EXPECT_EQ(tb->probe(p, Metric::WDL).status, ProbeStatus::Invalid);
  std::vector<MoveValue> mv;
  EXPECT_EQ(tb->probe_moves(p, mv), ProbeStatus::Invalid);
  std::vector<Move> pv;
  EXPECT_EQ(tb->principal_variation(p, pv), ProbeStatus::Invalid);
  // Too many pieces for any table.
  EXPECT_EQ(tb->probe(start_position(russian()), Metric::WDL).status, ProbeStatus::Unknown);
  EXPECT_EQ(tb->max_pieces(), 3);
}

TEST(Probe, KnownValues) {
  auto tb = open_tb(tables(Variant::Russian, 3));
  // The white king takes the last black piece at once.
  ProbeResult r = tb->probe(fen("W:WKc3:BKe5"), Metric::DTW);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value, Value::win(1));
  EXPECT_EQ(tb->probe(fen("W:WKc3:BKe5"), Metric::DTC).value, Value::win(1));
  EXPECT_EQ(tb->probe(fen("W:WKc3:BKe5"), Metric::WDL).value, Value::win(0));
  // King against king on open diagonals: a draw.
  r = tb->probe(fen("W:WKa1:BKh2"), Metric::DTW);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value, Value::draw());
  // A man that cannot move and nothing else: lost in 0 plies.
  std::vector<MoveValue> mv;
  ASSERT_EQ(tb->probe_moves(fen("B:Wb6,c5:Ba7"), mv), ProbeStatus::Ok);
  EXPECT_TRUE(mv.empty());
  EXPECT_EQ(tb->probe(fen("B:Wb6,c5:Ba7"), Metric::DTW).value, Value::loss(0));
  EXPECT_EQ(describe_value(Value::win(7), Metric::DTW), "win in 7 plies");
  EXPECT_EQ(describe_value(Value::loss(1), Metric::DTC), "loss in 1 ply");
  EXPECT_EQ(describe_value(Value::win(0), Metric::WDL), "win");
}

TEST(Probe, MissingTableAnswersUnknown) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "missing");
  for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC})
    std::filesystem::remove(table_path(dir, russian(), mat("2Kv1K"), m));
  std::filesystem::remove(table_path(dir, russian(), mat("1K1Mv1K"), Metric::DTC));
  std::filesystem::remove(table_path(dir, russian(), mat("1Kv1M"), Metric::WDL));
  auto tb = open_tb(dir);
  Solver& s = solver(Variant::Russian);
  s.solve(mat("2Kv1K"));
  s.solve(mat("1K1Mv1K"));

  // 2Kv1K: quiet positions are unknown; positions with a capture are not:
  // their answers come from what the captures lead to (1Kv1K, or nothing).
  const MaterialIndex idx(mat("2Kv1K"));
  std::uint64_t unknown = 0, answered = 0;
  for (std::uint64_t slot = 0; slot < table_slots(idx); ++slot) {
    const Position p = position_at(idx, slot);
    for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) {
      const ProbeResult r = tb->probe(p, m);
      if (has_capture(russian(), p)) {
        ASSERT_TRUE(r.ok()) << to_fen(russian(), p);
        EXPECT_EQ(r.value, *s.value(p, m));
        ++answered;
      } else {
        EXPECT_EQ(r.status, ProbeStatus::Unknown) << to_fen(russian(), p);
        ++unknown;
      }
    }
  }
  EXPECT_GT(unknown, 0u);
  EXPECT_GT(answered, 0u);
  EXPECT_EQ(tb->table_state(mat("2Kv1K"), Metric::DTW), TableState::Missing);
  EXPECT_EQ(tb->table_state(mat("1Kv1K"), Metric::DTW), TableState::Present);
  EXPECT_EQ(tb->missing_tables(fen("W:WKa1,Kc1:BKh8"), Metric::DTW), std::vector<Material>{mat("2Kv1K")});

  // 1K1Mv1K without its DTC file: WDL and DTW still answer, DTC is unknown,
  // and move lists say which DTC values are missing.
  const Position q = fen("W:WKa1,c3:BKh8");
  EXPECT_TRUE(tb->probe(q, Metric::WDL).ok());
  EXPECT_TRUE(tb->probe(q, Metric::DTW).ok());
  EXPECT_EQ(tb->probe(q, Metric::DTC).status, ProbeStatus::Unknown);
  std::vector<MoveValue> mv;
  ASSERT_EQ(tb->probe_moves(q, mv), ProbeStatus::Ok);
  bool some_unknown = false;
  for (const MoveValue& m : mv) some_unknown |= !m.dtc_known;
  EXPECT_TRUE(some_unknown);
  // A move list needs every successor's DTW.
  ASSERT_EQ(tb->probe_moves(fen("B:WKa1,Kc1:BKh2"), mv), ProbeStatus::Unknown);
  EXPECT_TRUE(mv.empty());
  std::vector<Move> pv;
  EXPECT_EQ(tb->principal_variation(fen("W:WKa1,Kc1:BKh8"), pv), ProbeStatus::Unknown);

  // 1Kv1M without its WDL file: its DTW file alone cannot answer (its
  // drawn positions are don't care, FORMAT.md 3.5), and the WDL table is
  // named as missing for DTW too.
  const Position w = fen("W:WKa1:Bh6");
  EXPECT_EQ(tb->probe(w, Metric::WDL).status, ProbeStatus::Unknown);
  EXPECT_EQ(tb->probe(w, Metric::DTW).status, ProbeStatus::Unknown);
  EXPECT_EQ(tb->missing_tables(w, Metric::DTW), std::vector<Material>{mat("1Kv1M")});
  EXPECT_TRUE(tb->errors().empty());
}

// Data offset of block b of a table file.
std::uint64_t block_offset(const std::filesystem::path& file, std::uint64_t b) {
  auto reader = TableReader::open(file);
  EXPECT_TRUE(reader.ok());
  std::uint64_t start = kTableHeaderSize + (*reader)->num_blocks() * 16 + 8;
  for (std::uint64_t i = 0; i < b; ++i) start += (*reader)->block_bytes(i);
  return start;
}

TEST(Probe, CorruptBlockIsReportedOnceThenMissing) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "corrupt");
  const auto file = table_path(dir, russian(), mat("2Kv1K"), Metric::DTW);
  flip_byte(file, block_offset(file, 0) + 3);
  std::vector<std::string> reported;
  std::mutex mu;
  TablebaseOptions opt;
  opt.on_error = [&](const std::string& m) {
    std::lock_guard lock(mu);
    reported.push_back(m);
  };
  auto tb = open_tb(dir, opt);
  const MaterialIndex idx(mat("2Kv1K"));
  int corrupt = 0, unknown = 0, ok_wdl = 0, drawn = 0;
  for (std::uint64_t slot = 0; slot < table_slots(idx); ++slot) {
    const Position p = position_at(idx, slot);
    if (has_capture(russian(), p)) continue;
    // The WDL file is sound and keeps answering.
    const ProbeResult w = tb->probe(p, Metric::WDL);
    ASSERT_TRUE(w.ok()) << to_fen(russian(), p);
    ++ok_wdl;
    const ProbeResult r = tb->probe(p, Metric::DTW);
    if (w.value.wdl == Wdl::Draw) {  // the DTW file is never read for a drawn position
      EXPECT_TRUE(r.ok() && r.value == Value::draw()) << to_fen(russian(), p);
      ++drawn;
      continue;
    }
    if (r.status == ProbeStatus::Corrupt) ++corrupt;
    if (r.status == ProbeStatus::Unknown) ++unknown;
    EXPECT_TRUE(r.status == ProbeStatus::Corrupt || r.status == ProbeStatus::Unknown);
  }
  EXPECT_EQ(corrupt, 1);
  EXPECT_GT(unknown, 1000) << drawn << " drawn";
  EXPECT_GT(drawn, 1000);
  EXPECT_GT(ok_wdl, 1000);
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_NE(reported[0].find("2Kv1K.dtw"), std::string::npos) << reported[0];
  EXPECT_NE(reported[0].find("checksum"), std::string::npos) << reported[0];
  EXPECT_EQ(tb->errors(), reported);
  EXPECT_EQ(tb->table_state(mat("2Kv1K"), Metric::DTW), TableState::Broken);
  EXPECT_EQ(tb->missing_tables(fen("W:WKa1,Kc1:BKh8"), Metric::DTW), std::vector<Material>{mat("2Kv1K")});
}

TEST(Probe, CorruptHeaderOrWrongVariantIsReportedOnce) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "badheader");
  flip_byte(table_path(dir, russian(), mat("1Kv1M"), Metric::DTC), 20);
  // A Brazilian table under a Russian name: built for other rules.
  const auto bdir = tables(Variant::Brazilian, 3);
  std::filesystem::copy_file(table_path(bdir, rules_of(Variant::Brazilian), mat("2Kv1M"), Metric::DTW),
                             table_path(dir, russian(), mat("2Kv1M"), Metric::DTW),
                             std::filesystem::copy_options::overwrite_existing);
  auto tb = open_tb(dir);
  // Won positions: a drawn one would never read its distance files.
  const Position k = fen("W:WKa1:Bh6");
  ASSERT_EQ(tb->probe(k, Metric::WDL).value, Value::win(0));
  EXPECT_EQ(tb->probe(k, Metric::DTC).status, ProbeStatus::Corrupt);
  EXPECT_EQ(tb->probe(k, Metric::DTC).status, ProbeStatus::Unknown);
  EXPECT_EQ(tb->probe(fen("W:WKb2:Bh6"), Metric::DTC).status, ProbeStatus::Unknown);
  EXPECT_TRUE(tb->probe(k, Metric::DTW).ok());
  const Position m = fen("W:WKa1,Kb2:Bh6");
  ASSERT_EQ(tb->probe(m, Metric::WDL).value, Value::win(0));
  EXPECT_EQ(tb->probe(m, Metric::DTW).status, ProbeStatus::Corrupt);
  EXPECT_EQ(tb->probe(m, Metric::DTW).status, ProbeStatus::Unknown);
  const auto errors = tb->errors();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("1Kv1M.dtc"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("2Kv1M.dtw"), std::string::npos) << errors[1];
}

TEST(Probe, ConditionalProbeNeverReads) {
  const auto& dir = tables(Variant::Russian, 3);
  auto tb = open_tb(dir);
  const Position p = fen("W:WKa1,Kc3:BKh8");
  // Not even the file is open yet.
  EXPECT_EQ(tb->probe(p, Metric::DTW, ProbeMode::Conditional).status, ProbeStatus::NotCached);
  EXPECT_EQ(tb->cache_stats().reads, 0u);
  const ProbeResult r = tb->probe(p, Metric::DTW);
  ASSERT_TRUE(r.ok());
  // Its WDL block, and its DTW block unless it is drawn (FORMAT.md 3.5).
  const std::uint64_t reads = r.value.wdl == Wdl::Draw ? 1u : 2u;
  EXPECT_EQ(tb->cache_stats().reads, reads);
  const ProbeResult c = tb->probe(p, Metric::DTW, ProbeMode::Conditional);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value, r.value);
  // Another block of the same file (2Kv1K DTW has 29760 slots in blocks of 8192).
  const Position far = position_at(MaterialIndex(mat("2Kv1K")), 29000);
  if (!has_capture(russian(), far) && locate(far).slot / 8192 != locate(p).slot / 8192) {
    EXPECT_EQ(tb->probe(far, Metric::DTW, ProbeMode::Conditional).status, ProbeStatus::NotCached);
  }
  std::vector<MoveValue> mv;
  const ProbeStatus ms = tb->probe_moves(p, mv, ProbeMode::Conditional);
  EXPECT_TRUE(ms == ProbeStatus::NotCached || ms == ProbeStatus::Ok);
  EXPECT_EQ(tb->cache_stats().reads, reads);

  // Without a cache nothing is ever answered conditionally.
  TablebaseOptions none;
  none.cache_bytes = 0;
  auto tb0 = open_tb(dir, none);
  ASSERT_TRUE(tb0->probe(p, Metric::DTW).ok());
  EXPECT_EQ(tb0->probe(p, Metric::DTW, ProbeMode::Conditional).status, ProbeStatus::NotCached);
  EXPECT_EQ(tb0->cache_stats().blocks, 0u);
}

TEST(Probe, CacheStaysWithinItsBudget) {
  const auto& dir = tables(Variant::Russian, 3, mat("3Kv1K"));
  TablebaseOptions opt;
  opt.cache_bytes = 96 << 10;
  auto tb = open_tb(dir, opt);
  Solver& s = solver(Variant::Russian);
  s.solve(mat("3Kv1K"));
  const MaterialIndex idx(mat("3Kv1K"));
  std::uint64_t wrong = 0;
  for (std::uint64_t slot = 0; slot < table_slots(idx); slot += 7) {
    const Position p = position_at(idx, slot);
    for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) {
      const ProbeResult r = tb->probe(p, m);
      wrong += !r.ok() || r.value != *s.value(p, m);
    }
    ASSERT_LE(tb->cache_stats().bytes, opt.cache_bytes);
  }
  EXPECT_EQ(wrong, 0u);
  const CacheStats st = tb->cache_stats();
  EXPECT_GT(st.hits, 0u);
  EXPECT_GT(st.reads, st.blocks);  // blocks were evicted and read again
  EXPECT_EQ(st.capacity, opt.cache_bytes);
}

// Files read with pread (map_files = false) and through a memory map (the
// default), with no cache so every probe reads its block: the true values.
TEST(Probe, MappedAndPreadFilesGiveTheTrueValues) {
  const auto& dir = tables(Variant::Russian, 3, mat("3Kv1K"));
  Solver& s = solver(Variant::Russian);
  s.solve(mat("3Kv1K"));
  const MaterialIndex idx(mat("3Kv1K"));
  for (const bool map : {true, false}) {
    TablebaseOptions opt;
    opt.cache_bytes = 0;
    opt.map_files = map;
    auto tb = open_tb(dir, opt);
    std::uint64_t wrong = 0, probes = 0;
    for (std::uint64_t slot = 0; slot < table_slots(idx); slot += 5) {
      const Position p = position_at(idx, slot);
      for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) {
        const ProbeResult r = tb->probe(p, m);
        wrong += !r.ok() || r.value != *s.value(p, m);
        ++probes;
      }
    }
    EXPECT_EQ(wrong, 0u) << "map_files " << map;
    EXPECT_GE(tb->cache_stats().reads, probes / 2) << "map_files " << map;  // blocks were read, not cached
  }
}

TEST(Probe, PrincipalVariationOfAKnownWin) {
  auto tb = open_tb(tables(Variant::Russian, 3));
  const Position p = fen("W:WKa1,Kc3:BKh8");
  const ProbeResult r = tb->probe(p, Metric::DTW);
  ASSERT_TRUE(r.ok());
  std::vector<Move> pv;
  ASSERT_EQ(tb->principal_variation(p, pv), ProbeStatus::Ok);
  ASSERT_EQ(pv.size(), r.value.plies);
  Position q = p;
  for (const Move& m : pv) q = apply(q, m);
  EXPECT_EQ(q.pieces(Color::Black), 0u);
  ASSERT_EQ(tb->principal_variation(fen("W:WKa1:BKh2"), pv), ProbeStatus::Ok);
  EXPECT_TRUE(pv.empty());  // a draw
}

// The C interface called from C++ (the C program tests/probe/c_api_test.c
// covers the rest).
TEST(ProbeCApi, RoundTrip) {
  const std::string dir = tables(Variant::Russian, 3).string();
  damka_tablebase* tb = nullptr;
  ASSERT_EQ(damka_open("russian", dir.c_str(), 1 << 20, &tb), DAMKA_OK);
  damka_value v{};
  // W:WKc3:BKe5 as bitboards: c3 = 9, e5 = 18.
  ASSERT_EQ(damka_probe(tb, 0, 1u << 9, 0, 1u << 18, DAMKA_WHITE, DAMKA_DTW, &v), DAMKA_OK);
  EXPECT_EQ(v.result, DAMKA_WIN);
  EXPECT_EQ(v.plies, 1);
  EXPECT_EQ(damka_probe_fen(tb, "W:WKc3,Ke3,Kg3:BKe5", DAMKA_WDL, &v), DAMKA_OK);  // captures into 3Kv0
  EXPECT_EQ(v.result, DAMKA_WIN);
  EXPECT_EQ(damka_probe_fen(tb, "W:WKa1,Kc1,Ke1:BKh8", DAMKA_WDL, &v), DAMKA_UNKNOWN);
  EXPECT_NE(std::string(damka_last_error()).find("3Kv1K"), std::string::npos) << damka_last_error();
  EXPECT_EQ(damka_probe_fen(tb, nullptr, DAMKA_WDL, &v), DAMKA_E_BAD_ARGUMENT);
  EXPECT_EQ(damka_probe_fen(nullptr, "W:WKc3:BKe5", DAMKA_WDL, &v), DAMKA_E_BAD_ARGUMENT);
  char line[8];
  EXPECT_EQ(damka_principal_variation_fen(tb, "W:WKa1,Kc3:BKh8", line, sizeof line), DAMKA_E_BUFFER_TOO_SMALL);
  size_t n = 99;
  EXPECT_EQ(damka_probe_moves(tb, 0, 1u, 0, 1u << 31, 5, nullptr, 0, &n), DAMKA_E_BAD_ARGUMENT);
  EXPECT_EQ(n, 0u);
  damka_close(tb);
  EXPECT_EQ(damka_open("russian", dir.c_str(), 1 << 20, nullptr), DAMKA_E_BAD_ARGUMENT);
}

}  // namespace
}  // namespace damka::probe_test
