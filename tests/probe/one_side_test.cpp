// One-side distance files (format version 6, FORMAT.md 3.5, one side to move): a set built
// with GenerateOptions::one_side answers every position exactly as the same
// set with both sides stored, in DTW and DTC, both sides to move and
// colour-flipped, through the probe (whose oracle searches the side a file
// leaves out); the set's materials were built one per run, reading their
// one-side successor files (FileSuccessors), so equal answers check that
// reader too.
// Also the writer's choice and the header it records.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "damka/notation.hpp"
#include "damka/probe.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "damka/verify.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

std::vector<std::uint16_t> read_all(const std::filesystem::path& file, TableHeader& h) {
  auto reader = TableReader::open(file);
  EXPECT_TRUE(reader.ok()) << reader.message();
  std::vector<std::uint16_t> codes, block;
  if (!reader.ok()) return codes;
  h = (*reader)->header();
  for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
    EXPECT_TRUE((*reader)->read_block(b, block).ok());
    codes.insert(codes.end(), block.begin(), block.end());
  }
  return codes;
}

std::uint64_t verify_mismatches(const Rules& r, const std::filesystem::path& dir) {
  auto res = verify_tables(r, dir, VerifyOptions(2));
  EXPECT_TRUE(res.ok()) << res.message();
  if (!res.ok()) return 0;
  EXPECT_TRUE(res->files.empty());
  std::uint64_t n = 0;
  for (const VerifyReport& t : res->tables) {
    EXPECT_TRUE(t.error.empty()) << t.material.name() << ": " << t.error;
    n += t.mismatches;
  }
  return n;
}

std::filesystem::path one_side_tables(Variant v, int max_pieces, int threads = 2) {
  GenerateOptions opt;
  opt.max_pieces = max_pieces;
  opt.out = fresh_dir("one_side_" + std::string(rules_of(v).name) + "_" + std::to_string(max_pieces) + "_t" +
                      std::to_string(threads));
  opt.threads = threads;
  opt.one_side = true;
  // One material per run: each reads its successors from their (one-side)
  // files, not from tables kept in memory by the same run.
  for (const Material& m : build_order(max_pieces)) {
    opt.only = m;
    auto r = generate(rules_of(v), opt);
    EXPECT_TRUE(r.ok()) << r.message();
  }
  return opt.out;
}

class OneSide : public ::testing::TestWithParam<Variant> {};

TEST_P(OneSide, AnswersEveryPositionAsBothSides) {
  const Variant variant = GetParam();
  const Rules& r = rules_of(variant);
  const int pieces = 4;
  const auto both_dir = tables(variant, pieces);
  const auto one_dir = one_side_tables(variant, pieces);
  auto both = Tablebase::open(r, both_dir);
  auto one = Tablebase::open(r, one_dir);
  ASSERT_TRUE(both.ok()) << both.message();
  ASSERT_TRUE(one.ok()) << one.message();
  std::uint64_t positions = 0, lines = 0, mismatches = 0, one_sided = 0, dropped_white = 0, dropped_black = 0;
  for (const Material& m : build_order(pieces)) {
    for (Metric metric : {Metric::DTW, Metric::DTC}) {
      auto reader = TableReader::open(table_path(one_dir, r, m, metric));
      ASSERT_TRUE(reader.ok()) << reader.message();
      const TableHeader& h = (*reader)->header();
      EXPECT_EQ(h.format_version, kTableFormatVersion);
      if (m.is_symmetric()) {
        EXPECT_EQ(h.stored_side, StoredSide::Both) << m.name();
      } else {
        EXPECT_NE(h.stored_side, StoredSide::Both) << m.name();
        ++one_sided;
        (h.stored_side == StoredSide::White ? dropped_black : dropped_white)++;
      }
    }
    const MaterialIndex idx(m);
    const std::uint64_t n = table_slots(idx);
    for (std::uint64_t slot = 0; slot < n; ++slot) {
      const Position p = position_at(idx, slot);
      for (const Position& q : {p, p.flipped()}) {
        ++positions;
        if (slot % 97 == 0) {  // every move's distances and the principal variation
          std::vector<MoveValue> mw, mg;
          std::vector<Move> pw, pg;
          ASSERT_EQ((*both)->probe_moves(q, mw), ProbeStatus::Ok);
          ASSERT_EQ((*one)->probe_moves(q, mg), ProbeStatus::Ok) << to_fen(r, q);
          ASSERT_EQ(mw.size(), mg.size());
          for (std::size_t i = 0; i < mw.size(); ++i) {
            EXPECT_TRUE(mw[i].move.same_result(mg[i].move)) << to_fen(r, q);
            EXPECT_EQ(mw[i].dtw, mg[i].dtw) << to_fen(r, q);
            EXPECT_EQ(mw[i].dtc, mg[i].dtc) << to_fen(r, q);
          }
          ASSERT_EQ((*both)->principal_variation(q, pw), ProbeStatus::Ok);
          ASSERT_EQ((*one)->principal_variation(q, pg), ProbeStatus::Ok) << to_fen(r, q);
          ASSERT_EQ(pw.size(), pg.size()) << to_fen(r, q);
          for (std::size_t i = 0; i < pw.size(); ++i) EXPECT_TRUE(pw[i].same_result(pg[i])) << to_fen(r, q);
          ++lines;
        }
        for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) {
          const ProbeResult want = (*both)->probe(q, metric);
          const ProbeResult got = (*one)->probe(q, metric);
          ASSERT_TRUE(want.ok()) << to_fen(r, q);
          if (!got.ok() || got.value != want.value) {
            if (++mismatches <= 10)
              ADD_FAILURE() << m.name() << " " << to_fen(r, q) << " " << metric_name(metric) << ": one side "
                            << probe_status_name(got.status) << " " << describe_value(got.value, metric)
                            << ", both sides " << describe_value(want.value, metric);
          }
        }
      }
    }
  }
  // A file of each kind was written (the choice depends on the tables).
  EXPECT_GT(one_sided, 0u);
  EXPECT_EQ(mismatches, 0u);
  EXPECT_TRUE((*one)->errors().empty());
  std::printf("%s: %llu positions; %llu one-side files (%llu keep White, %llu keep Black)\n",
              std::string(r.name).c_str(), static_cast<unsigned long long>(positions),
              static_cast<unsigned long long>(one_sided), static_cast<unsigned long long>(dropped_black),
              static_cast<unsigned long long>(dropped_white));
  EXPECT_GT(lines, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllVariants, OneSide,
                         ::testing::Values(Variant::Russian, Variant::Brazilian, Variant::Filipino,
                                           Variant::Mozambique, Variant::Thai, Variant::English),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(rules_of(info.param).name);
                         });

std::string file_bytes(const std::filesystem::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The writer's choice depends only on the codes: the same bytes for any
// thread count.
TEST(OneSideWriter, SameBytesForAnyThreadCount) {
  const Rules& r = rules_of(Variant::English);
  const auto one = one_side_tables(Variant::English, 3, 1), two = one_side_tables(Variant::English, 3, 2);
  std::uint64_t files = 0;
  for (const Material& m : build_order(3))
    for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) {
      const std::string a = file_bytes(table_path(one, r, m, metric)), b = file_bytes(table_path(two, r, m, metric));
      EXPECT_FALSE(a.empty());
      EXPECT_EQ(a, b) << m.name() << " " << metric_name(metric);
      ++files;
    }
  EXPECT_GT(files, 0u);
}

// The DTW and DTC files of a material may keep different sides (each
// writer keeps the half that compresses better, so which one depends on the
// compression too).  verify fills the DTW entries a file leaves out before
// the DTC entries the other leaves out: the latter's one-ply search takes
// its successors' WDL from their DTW values.  Here every non-symmetric
// material's files of a both-sides set are written again with the sides
// forced apart, both ways round; the probe answers as before.
TEST(OneSideVerify, DtwAndDtcKeepingDifferentSides) {
  const Rules& r = rules_of(Variant::Russian);
  const auto& both = tables(Variant::Russian, 4);
  auto want = Tablebase::open(r, both);
  ASSERT_TRUE(want.ok()) << want.message();
  for (StoredSide dtw_side : {StoredSide::White, StoredSide::Black}) {
    const StoredSide dtc_side = dtw_side == StoredSide::White ? StoredSide::Black : StoredSide::White;
    const auto dir = copy_tables(both, r, "mixed_sides");
    std::uint64_t rewritten = 0;
    for (const Material& m : build_order(4)) {
      if (m.is_symmetric()) continue;
      for (Metric metric : {Metric::DTW, Metric::DTC}) {
        TableHeader h;
        const std::vector<std::uint16_t> codes = read_all(table_path(both, r, m, metric), h);
        ASSERT_EQ(h.stored_side, StoredSide::Both);
        h.stored_side = metric == Metric::DTW ? dtw_side : dtc_side;
        ASSERT_TRUE(write_table(table_path(dir, r, m, metric), h, codes).ok());
        ++rewritten;
      }
    }
    ASSERT_GT(rewritten, 10u);
    EXPECT_EQ(verify_mismatches(r, dir), 0u) << "DTW keeps " << stored_side_name(dtw_side);
    auto got = Tablebase::open(r, dir);
    ASSERT_TRUE(got.ok()) << got.message();
    const Material m = mat("1K1Mv1M");
    const MaterialIndex idx(m);
    std::uint64_t differ = 0;
    for (std::uint64_t slot = 0; slot < table_slots(idx); ++slot)
      for (Metric metric : {Metric::DTW, Metric::DTC}) {
        const Position p = position_at(idx, slot);
        differ += (*want)->probe(p, metric).value != (*got)->probe(p, metric).value;
      }
    EXPECT_EQ(differ, 0u);
  }
}

// verify re-checks a one-side set: clean, it finds nothing; a changed
// stored distance, or a changed WDL entry of a position whose distance is
// left out, is a mismatch.
TEST(OneSideVerify, FindsChangesOnBothSides) {
  const Rules& r = rules_of(Variant::Russian);
  const auto dir = one_side_tables(Variant::Russian, 4);
  EXPECT_EQ(verify_mismatches(r, dir), 0u);
  const Material m = mat("2Kv1K1M");
  const MaterialIndex index(m);
  TableHeader dh, wh;
  const auto dtw_file = table_path(dir, r, m, Metric::DTW), wdl_file = table_path(dir, r, m, Metric::WDL);
  std::vector<std::uint16_t> dtw = read_all(dtw_file, dh);
  const std::vector<std::uint16_t> wdl = read_all(wdl_file, wh);
  ASSERT_NE(dh.stored_side, StoredSide::Both);
  // A won, stored, not derived position of each side.
  std::uint64_t stored = dtw.size(), unstored = dtw.size();
  for (std::uint64_t i = 0; i < dtw.size(); ++i) {
    if (Value::decode(wdl[i]).wdl != Wdl::Win || is_derived(r, position_at(index, i))) continue;
    (dh.stores_slot(i) ? stored : unstored) = std::min(i, dh.stores_slot(i) ? stored : unstored);
  }
  ASSERT_LT(stored, dtw.size());
  ASSERT_LT(unstored, dtw.size());
  // info's counts: every slot once, the side left out as draws or unstored.
  {
    auto d = TableReader::open(dtw_file);
    auto w = TableReader::open(wdl_file);
    ASSERT_TRUE(d.ok() && w.ok());
    auto counts = count_codes(**d, w->get());
    ASSERT_TRUE(counts.ok()) << counts.message();
    std::uint64_t total = counts->derived_white_to_move + counts->derived_black_to_move +
                          counts->unstored_white_to_move + counts->unstored_black_to_move;
    for (std::uint64_t c : counts->white_to_move) total += c;
    for (std::uint64_t c : counts->black_to_move) total += c;
    EXPECT_EQ(total, dtw.size());
    EXPECT_GT(dh.stored_side == StoredSide::White ? counts->unstored_black_to_move : counts->unstored_white_to_move, 0u);
    EXPECT_EQ(dh.stored_side == StoredSide::White ? counts->unstored_white_to_move : counts->unstored_black_to_move, 0u);
  }
  const std::vector<std::uint16_t> dtw_before = dtw;
  dtw[stored] = Value::win(Value::decode(dtw[stored]).plies + 2).encode();
  ASSERT_TRUE(write_table(dtw_file, dh, dtw).ok());
  EXPECT_GT(verify_mismatches(r, dir), 0u);
  ASSERT_TRUE(write_table(dtw_file, dh, dtw_before).ok());
  EXPECT_EQ(verify_mismatches(r, dir), 0u);
  std::vector<std::uint16_t> wdl_changed = wdl;
  wdl_changed[unstored] = Value::draw().encode();
  ASSERT_TRUE(write_table(wdl_file, wh, wdl_changed).ok());
  EXPECT_GT(verify_mismatches(r, dir), 0u);
}

// The writer keeps the half whose blocks compress smaller, records it, and
// reads back the kept half exactly; WDL tables and symmetric materials keep
// both sides whatever is asked.
TEST(OneSideWriter, KeepsTheSmallerHalf) {
  const Rules& r = rules_of(Variant::Russian);
  const Material m = mat("2Kv1K");
  const auto dir = fresh_dir("one_side_writer");
  TableHeader h = default_table_header(r, m, Metric::DTW);
  h.block_size = 1000;  // the halves meet inside a block
  const std::uint64_t half = h.slots / 2;
  ASSERT_NE(half % h.block_size, 0u);
  for (int noisy = 0; noisy < 2; ++noisy) {
    // The noisy half compresses worse: the other one is kept.
    std::vector<std::uint16_t> codes(h.slots);
    std::uint32_t x = 12345;
    for (std::uint64_t i = 0; i < h.slots; ++i) {
      x = x * 1103515245u + 12345u;
      const bool in_noisy = (i < half) == (noisy == 0);
      codes[i] = Value::win(in_noisy ? static_cast<int>(1 + (x >> 16) % 200) : 7).encode();
    }
    WriteOptions wo;
    wo.keep_smaller_side = true;
    const auto path = dir / ("t" + std::to_string(noisy) + ".dtw");
    ASSERT_TRUE(write_table(path, h, codes, wo).ok());
    auto reader = TableReader::open(path);
    ASSERT_TRUE(reader.ok()) << reader.message();
    const TableHeader& got = (*reader)->header();
    EXPECT_EQ(got.stored_side, noisy == 0 ? StoredSide::Black : StoredSide::White);
    for (std::uint64_t slot = 0; slot < h.slots; ++slot) {
      EXPECT_EQ(got.stores_slot(slot), (slot < half) == (noisy == 1));
      if (got.stores_slot(slot)) {
        auto c = (*reader)->get(slot);
        ASSERT_TRUE(c.ok());
        ASSERT_EQ(*c, codes[slot]) << slot;
      }
    }
    // Smaller than the same table with both sides.
    const auto full = dir / ("full" + std::to_string(noisy) + ".dtw");
    ASSERT_TRUE(write_table(full, h, codes).ok());
    EXPECT_LT(std::filesystem::file_size(path) * 3, std::filesystem::file_size(full) * 2);
  }
  // Ignored for a WDL table and for a symmetric material.
  for (const auto& [name, metric] : {std::pair{"2Kv1K", Metric::WDL}, std::pair{"1Kv1K", Metric::DTW}}) {
    const TableHeader hh = default_table_header(r, mat(name), metric);
    std::vector<std::uint16_t> codes(hh.slots, metric == Metric::WDL ? Value::draw().encode() : Value::win(3).encode());
    WriteOptions wo;
    wo.keep_smaller_side = true;
    const auto path = dir / (std::string(name) + "." + std::string(metric_name(metric)));
    ASSERT_TRUE(write_table(path, hh, codes, wo).ok());
    auto reader = TableReader::open(path);
    ASSERT_TRUE(reader.ok()) << reader.message();
    EXPECT_EQ((*reader)->header().stored_side, StoredSide::Both);
  }
}

}  // namespace
}  // namespace damka::probe_test
