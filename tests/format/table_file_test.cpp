// Table files: writer/reader round trips and refusal of bad files.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fstream>
#include <random>
#include <thread>
#include <atomic>
#include <unistd.h>

#include <xxhash.h>
#include <zstd.h>

#include <functional>

#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/value_oracle.hpp"
#include "table_layout.hpp"
#include "table_repair.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;

// A directory of this process, removed at exit.
fs::path test_dir() {
  static const testing::TempDir dir("format_test");
  return dir.path;
}

Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Codes with some structure (runs) and some noise, like real tables.
std::vector<std::uint16_t> make_codes(std::uint64_t n, std::uint16_t max_code, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint16_t> codes(n);
  std::uint16_t run = 0;
  for (auto& c : codes) {
    if (rng() % 16 == 0) run = static_cast<std::uint16_t>(rng() % (max_code + 1));
    c = rng() % 4 == 0 ? static_cast<std::uint16_t>(rng() % (max_code + 1)) : run;
  }
  codes[n / 2] = max_code;
  return codes;
}

// Replaces about `percent`% of the codes (in runs and alone) by kDontCareCode.
void add_dont_care(std::vector<std::uint16_t>& codes, int percent, unsigned seed) {
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if (static_cast<int>(rng() % 100) >= percent) continue;
    const std::size_t len = rng() % 4 == 0 ? 1 + rng() % 40 : 1;
    for (std::size_t j = i; j < std::min(codes.size(), i + len); ++j) codes[j] = kDontCareCode;
  }
}

std::uint16_t max_stored(const std::vector<std::uint16_t>& codes) {
  std::uint16_t m = 0;
  for (std::uint16_t c : codes)
    if (c != kDontCareCode) m = std::max(m, c);
  return m;
}

struct Sample {
  TableHeader header;
  std::vector<std::uint16_t> codes;  // as given to the writer (may hold kDontCareCode)
  fs::path path;
};

// 2Kv1K: 14880 placements, 29760 slots; small blocks so there are many.
Sample write_sample(const std::string& name, Metric metric = Metric::WDL,
                    ValueEncoding enc = ValueEncoding::WdlRun, std::uint32_t block_size = 1000,
                    int dont_care_percent = 0, const char* material = "2Kv1K",
                    std::uint16_t version = kTableFormatVersion) {
  Sample s;
  s.header = default_table_header(rules_of(Variant::Russian), *Material::parse(material), metric);
  s.header.format_version = version;
  s.header.encoding = enc;
  s.header.block_size = block_size;
  s.header.zstd_level = 3;
  s.codes = make_codes(s.header.slots, metric == Metric::WDL ? 2 : 301, 7);
  if (dont_care_percent > 0) add_dont_care(s.codes, dont_care_percent, 11);
  s.path = test_dir() / name;
  const Status st = write_table(s.path, s.header, s.codes);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

// A code read back for slot i: the one written, or any code of the table
// where a don't-care entry was written.
bool matches(std::uint16_t got, std::uint16_t written, std::uint16_t max_code) {
  return written == kDontCareCode ? got <= max_code : got == written;
}

void expect_refused(const fs::path& p, const std::string& problem) {
  const auto r = TableReader::open(p);
  ASSERT_FALSE(r.ok()) << p;
  EXPECT_NE(r.message().find(p.string()), std::string::npos) << r.message();
  EXPECT_NE(r.message().find(problem), std::string::npos) << r.message();
}

void expect_round_trip_with(const Sample& s, FileAccess access) {
  SCOPED_TRACE(access == FileAccess::Map ? "mapped" : "pread");
  auto r = TableReader::open(s.path, access);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ((*r)->mapped(), access == FileAccess::Map);
  const TableHeader& h = (*r)->header();
  EXPECT_EQ(h.material, s.header.material);
  EXPECT_EQ(h.metric, s.header.metric);
  EXPECT_EQ(h.encoding, s.header.encoding);
  EXPECT_EQ(h.fingerprint, rules_of(Variant::Russian).fingerprint());
  EXPECT_EQ(h.slots, s.codes.size());
  EXPECT_EQ(h.file_size, fs::file_size(s.path));
  EXPECT_EQ(h.max_code, max_stored(s.codes));
  EXPECT_TRUE(check_table_rules(h, rules_of(Variant::Russian)).ok());
  EXPECT_FALSE(check_table_rules(h, rules_of(Variant::English)).ok());
  std::vector<std::uint16_t> block;
  for (std::uint64_t b = 0; b < (*r)->num_blocks(); ++b) {
    ASSERT_TRUE((*r)->read_block(b, block).ok());
    ASSERT_EQ(block.size(), (*r)->block_positions(b));
    for (std::size_t j = 0; j < block.size(); ++j)
      ASSERT_TRUE(matches(block[j], s.codes[b * h.block_size + j], h.max_code)) << b << " " << j;
    if (h.max_code <= 2) {  // the probe's 2-bit form says the same
      std::vector<unsigned char> packed((block.size() + 3) / 4);
      ASSERT_TRUE((*r)->read_block_packed(b, packed.data()).ok());
      for (std::size_t j = 0; j < block.size(); ++j) ASSERT_EQ((packed[j / 4] >> (2 * (j % 4))) & 3, block[j]);
    }
  }
  for (std::uint64_t slot = 0; slot < h.slots; slot += 37)
    ASSERT_TRUE(matches(*(*r)->get(slot), s.codes[slot], h.max_code));
  EXPECT_FALSE((*r)->get(h.slots).ok());
  EXPECT_FALSE((*r)->read_block((*r)->num_blocks(), block).ok());
  EXPECT_TRUE((*r)->verify_file_checksum().ok());
}

// Blocks read with pread and from a memory map give the same codes.
void expect_round_trip(const Sample& s) {
  expect_round_trip_with(s, FileAccess::Pread);
  expect_round_trip_with(s, FileAccess::Map);
}

TEST(TableFile, RoundTripEveryEncoding) {
  expect_round_trip(write_sample("wdlrun.wdl"));
  expect_round_trip(write_sample("wdlrun_dc.wdl", Metric::WDL, ValueEncoding::WdlRun, 1000, 40));
  expect_round_trip(write_sample("wdlrun_1.wdl", Metric::WDL, ValueEncoding::WdlRun, 1, 30));
  expect_round_trip(write_sample("wdlrun_odd.wdl", Metric::WDL, ValueEncoding::WdlRun, 8191, 50));
  expect_round_trip(write_sample("wdlrun_2048.wdl", Metric::WDL, ValueEncoding::WdlRun, 2048, 50));
  expect_round_trip(write_sample("wdlrun_2049.wdl", Metric::WDL, ValueEncoding::WdlRun, 2049, 50));
  expect_round_trip(write_sample("wdlrun_big.wdl", Metric::WDL, ValueEncoding::WdlRun, 1u << 20, 50));
  expect_round_trip(write_sample("wdlrun_sym.wdl", Metric::WDL, ValueEncoding::WdlRun, 333, 20, "1Kv1K"));
  expect_round_trip(write_sample("wdl2.wdl", Metric::WDL, ValueEncoding::Wdl2));
  expect_round_trip(write_sample("wdl2_dc.wdl", Metric::WDL, ValueEncoding::Wdl2, 777, 40));
  expect_round_trip(write_sample("dtw_dc.dtw", Metric::DTW, ValueEncoding::U16Planes, 4096, 40));
  expect_round_trip(write_sample("dtc_u16_dc.dtc", Metric::DTC, ValueEncoding::U16, 77, 60));
  expect_round_trip(write_sample("wdl_u16.wdl", Metric::WDL, ValueEncoding::U16, 4096));
  expect_round_trip(write_sample("dtw_u16.dtw", Metric::DTW, ValueEncoding::U16, 999));
  expect_round_trip(write_sample("dtw_planes.dtw", Metric::DTW, ValueEncoding::U16Planes, 1));
  expect_round_trip(write_sample("dtc_big.dtc", Metric::DTC, ValueEncoding::U16Planes, 1u << 20));
  expect_round_trip(write_sample("wdl_odd.wdl", Metric::WDL, ValueEncoding::Wdl2, 1001));
}

TEST(TableFile, ConcurrentReads) {
  const Sample s = write_sample("threads.dtw", Metric::DTW, ValueEncoding::U16, 700);
  auto r = TableReader::open(s.path);
  ASSERT_TRUE(r.ok());
  const TableReader& reader = **r;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<std::uint16_t> codes;
      for (int round = 0; round < 3; ++round)
        for (std::uint64_t b = t % 2; b < reader.num_blocks(); b += 1 + t % 2) {
          if (!reader.read_block(b, codes).ok()) ++wrong;
          for (std::size_t j = 0; j < codes.size(); ++j)
            if (codes[j] != s.codes[b * 700 + j]) ++wrong;
          const std::uint64_t slot = (b * 700 + 13 * t) % s.codes.size();
          if (*reader.get(slot) != s.codes[slot]) ++wrong;
        }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(TableFile, CountCodes) {
  Sample s = write_sample("counts.dtw", Metric::DTW, ValueEncoding::U16Planes, 999);
  // The WDL table of the same positions; the DTW file then gets a win in 3
  // in every drawn entry (don't care in a distance file, FORMAT.md 3.5).
  std::vector<std::uint16_t> wdl(s.codes.size());
  std::uint64_t drawn = 0;
  for (std::size_t i = 0; i < s.codes.size(); ++i) {
    wdl[i] = Value::decode(s.codes[i]).wdl_only().encode();
    if (wdl[i] == Value::draw().encode()) ++drawn;
  }
  ASSERT_GT(drawn, 0u);
  std::vector<std::uint16_t> stored = s.codes;
  for (std::size_t i = 0; i < stored.size(); ++i)
    if (wdl[i] == Value::draw().encode()) stored[i] = Value::win(3).encode();
  ASSERT_TRUE(write_table(s.path, s.header, stored).ok());
  const fs::path wdl_path = test_dir() / "counts.wdl";
  ASSERT_TRUE(write_table(wdl_path, default_table_header(rules_of(Variant::Russian), s.header.material, Metric::WDL), wdl).ok());
  auto r = TableReader::open(s.path);
  ASSERT_TRUE(r.ok());
  auto wr = TableReader::open(wdl_path);
  ASSERT_TRUE(wr.ok());
  // Without its WDL table a distance table cannot tell its draws.
  const auto alone = count_codes(**r);
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.message().find("WDL"), std::string::npos) << alone.message();
  const auto counts = count_codes(**r, wr->get());
  ASSERT_TRUE(counts.ok()) << counts.message();
  const std::uint64_t n = s.codes.size() / 2;  // 2Kv1K is not symmetric: White, then Black to move
  // Stored positions are counted by code; derived ones (a capture to make)
  // only by side.
  const MaterialIndex index(s.header.material);
  std::vector<std::uint64_t> w(302, 0), b(302, 0);
  std::uint64_t dw = 0, db = 0;
  for (std::uint64_t i = 0; i < s.codes.size(); ++i) {
    if (is_derived(rules_of(s.header.variant), position_at(index, i)))
      ++(i < n ? dw : db);
    else
      (i < n ? w : b)[s.codes[i]]++;
  }
  EXPECT_GT(dw, 0u);
  EXPECT_GT(db, 0u);
  EXPECT_EQ(counts->white_to_move, w);
  EXPECT_EQ(counts->black_to_move, b);
  EXPECT_EQ(counts->derived_white_to_move, dw);
  EXPECT_EQ(counts->derived_black_to_move, db);
  // A WDL table that disagrees on who wins (every position a loss) is corruption.
  std::vector<std::uint16_t> losses(wdl.size(), Value::loss(0).encode());
  ASSERT_TRUE(write_table(wdl_path, default_table_header(rules_of(Variant::Russian), s.header.material, Metric::WDL), losses).ok());
  auto bad = TableReader::open(wdl_path);
  ASSERT_TRUE(bad.ok());
  const auto disagree = count_codes(**r, bad->get());
  ASSERT_FALSE(disagree.ok());
  EXPECT_NE(disagree.message().find("disagrees"), std::string::npos) << disagree.message();
}

// kDontCareCode: accepted by the writer for any slot (derived positions);
// the reader returns some valid code there and the stored codes unchanged.
TEST(TableFile, DontCareSlotsReadBackAsValidCodes) {
  for (Metric metric : {Metric::WDL, Metric::DTW}) {
    TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K"), metric);
    std::vector<std::uint16_t> codes = make_codes(h.slots, metric == Metric::WDL ? 2 : 300, 7);
    std::mt19937 rng(3);
    for (std::size_t i = 0; i < codes.size(); ++i)
      if (rng() % 3 == 0 || i < 5) codes[i] = kDontCareCode;
    const fs::path p = test_dir() / (std::string("dontcare.") + std::string(metric_name(metric)));
    ASSERT_TRUE(write_table(p, h, codes).ok());
    auto r = TableReader::open(p);
    ASSERT_TRUE(r.ok()) << r.message();
    const std::uint16_t top = metric == Metric::WDL ? 2 : 300;
    for (std::uint64_t i = 0; i < h.slots; ++i) {
      const auto got = (*r)->get(i);
      ASSERT_TRUE(got.ok()) << got.message();
      if (codes[i] == kDontCareCode)
        ASSERT_LE(*got, top) << i;
      else
        ASSERT_EQ(*got, codes[i]) << i;
    }
  }
}

// wdlrun (FORMAT.md 3.5): the writer's parse gives each don't-care entry
// the value that costs least: inside a run of one value, that value (the run
// stays one symbol); a table whose gaps are don't-care is no larger than the
// same table with the gaps filled by the value before them (the version-2
// rule), and much smaller than with random values there.
TEST(TableFile, WdlRunParseChoosesDontCareValues) {
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K"), Metric::WDL);
  std::vector<std::uint16_t> codes(h.slots);
  std::mt19937 rng(5);
  for (std::size_t i = 0; i < codes.size();) {  // runs of 1..60 of one value
    const std::size_t len = 1 + rng() % 60;
    const auto v = static_cast<std::uint16_t>(rng() % 3);
    for (std::size_t j = i; j < std::min(codes.size(), i + len); ++j) codes[j] = v;
    i += len;
  }
  std::vector<std::uint16_t> given = codes, prev_fill = codes, random_fill = codes;
  for (std::size_t i = 1; i < codes.size(); ++i)
    if (rng() % 2 == 0) {
      given[i] = kDontCareCode;
      prev_fill[i] = prev_fill[i - 1];
      random_fill[i] = static_cast<std::uint16_t>(rng() % 3);
    }
  const auto size_of = [&](const std::vector<std::uint16_t>& c, const char* name) {  // the blocks' bytes
    const fs::path p = test_dir() / name;
    EXPECT_TRUE(write_table(p, h, c).ok());
    auto r = TableReader::open(p);
    EXPECT_TRUE(r.ok()) << r.message();
    std::uint64_t bytes = 0;
    for (std::uint64_t b = 0; r.ok() && b < (*r)->num_blocks(); ++b) bytes += (*r)->block_bytes(b);
    return bytes;
  };
  const auto parsed = size_of(given, "parse_dc.wdl"), prev = size_of(prev_fill, "parse_prev.wdl"),
             random = size_of(random_fill, "parse_random.wdl");
  EXPECT_LE(parsed, prev);
  EXPECT_LT(parsed * 2, random);
  auto r = TableReader::open(test_dir() / "parse_dc.wdl");
  ASSERT_TRUE(r.ok()) << r.message();
  for (std::uint64_t i = 0; i < h.slots; ++i)
    if (given[i] != kDontCareCode) {
      ASSERT_EQ(*(*r)->get(i), given[i]) << i;
    }

  // Don't-care entries never take a value above the given codes' largest
  // (the header's max code): a table of draws with holes reads back as draws.
  std::vector<std::uint16_t> draws(h.slots, 0);
  for (std::size_t i = 3; i < draws.size(); i += 7) draws[i] = kDontCareCode;
  ASSERT_TRUE(write_table(test_dir() / "parse_draws.wdl", h, draws).ok());
  auto rd = TableReader::open(test_dir() / "parse_draws.wdl");
  ASSERT_TRUE(rd.ok()) << rd.message();
  EXPECT_EQ((*rd)->header().max_code, 0);
  for (std::uint64_t i = 0; i < h.slots; ++i) ASSERT_EQ(*(*rd)->get(i), 0) << i;
}

// The block table (FORMAT.md 3.2): wdlrun fields of as few bits as hold the
// largest block's bytes + 2 (9 bits for up to 1024 positions), u32 offsets
// for the zstd encodings; the blocks start right after it.
TEST(TableFile, BlockTableLayout) {
  EXPECT_EQ(table_layout::block_entry_bits(ValueEncoding::WdlRun, 1024), 9);   // <= 384 bytes + 2
  EXPECT_EQ(table_layout::block_entry_bits(ValueEncoding::WdlRun, 1000), 9);   // <= 375 bytes + 2
  EXPECT_EQ(table_layout::block_entry_bits(ValueEncoding::WdlRun, 2048), 10);  // <= 768 bytes + 2
  EXPECT_EQ(table_layout::block_entry_bits(ValueEncoding::WdlRun, 4096), 11);  // <= 1536 bytes + 2
  EXPECT_EQ(table_layout::block_entry_bits(ValueEncoding::WdlRun, 1), 3);      // <= 2 bytes + 2
  EXPECT_EQ(table_layout::block_entry_bits(ValueEncoding::WdlRun, 1u << 24), 23);
  EXPECT_EQ(table_layout::block_entry_bits(ValueEncoding::Wdl2, 1024), 32);
  for (std::uint32_t bs : {1000u, 2048u, 2049u, 1u << 20}) {  // 2, 2, 2, 3 bytes a compact block field
    for (ValueEncoding enc : {ValueEncoding::WdlRun, ValueEncoding::Wdl2}) {
      const Sample s = write_sample("entries.wdl", Metric::WDL, enc, bs);
      auto r = TableReader::open(s.path);
      ASSERT_TRUE(r.ok()) << r.message();
      const std::uint64_t nb = (*r)->num_blocks();
      const int bits = enc == ValueEncoding::WdlRun ? (bs <= 1000 ? 9 : bs <= 2049 ? 10 : 19) : 32;
      EXPECT_EQ(table_layout::block_entry_bits(enc, bs), bits);
      std::uint64_t blocks = 0;
      for (std::uint64_t b = 0; b < nb; ++b) blocks += (*r)->block_bytes(b);
      const std::uint64_t groups = (nb + 63) / 64;
      if (enc == ValueEncoding::WdlRun) {  // version 7: the compact index, its size in the header
        const Bytes f = read_bytes(s.path);
        const std::uint64_t index = table_layout::get_le(&f[80], 8);
        EXPECT_EQ((*r)->header().index_bytes, index);
        EXPECT_EQ(index, 8 + table_layout::get_le(&f[128], 4) + table_layout::get_le(&f[132], 4) + 8 * groups);
        EXPECT_EQ(fs::file_size(s.path), kTableHeaderSize + index + blocks + 16) << bs;
        continue;
      }
      EXPECT_EQ(fs::file_size(s.path), kTableHeaderSize + 16 * groups + 8 + (bits * nb + 7) / 8 + blocks + 16) << bs;
    }
  }
}

// wdlrun blocks whose given codes are all one code (or none is given) are
// stored as 0 bytes, their code in the block table (FORMAT.md 3.2); they
// read back as that code, a whole group of them too.
TEST(TableFile, ConstantWdlRunBlocksTakeNoBytes) {
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K"), Metric::WDL);
  h.block_size = 100;  // 298 blocks, 5 groups
  std::vector<std::uint16_t> codes = make_codes(h.slots, 2, 9);
  // Block b % 5: 0 all 1, 1 all don't care, 2 code 2 with don't-care holes, 3 all 0, 4 mixed.
  for (std::uint64_t b = 0; b < 200; ++b)
    for (std::uint64_t j = b * 100; j < (b + 1) * 100; ++j)
      switch (b % 5) {
        case 0: codes[j] = 1; break;
        case 1: codes[j] = kDontCareCode; break;
        case 2: codes[j] = j % 3 == 0 ? kDontCareCode : 2; break;
        case 3: codes[j] = 0; break;
        default: break;
      }
  // Blocks 200..263 (the whole fourth group): code 1.
  for (std::uint64_t j = 200 * 100; j < 264 * 100; ++j) codes[j] = 1;
  const fs::path p = test_dir() / "constant.wdl";
  ASSERT_TRUE(write_table(p, h, codes).ok());
  for (const FileAccess access : {FileAccess::Map, FileAccess::Pread}) {
    auto r = TableReader::open(p, access);
    ASSERT_TRUE(r.ok()) << r.message();
    std::vector<std::uint16_t> got;
    std::uint64_t constant = 0;
    for (std::uint64_t b = 0; b < (*r)->num_blocks(); ++b) {
      const bool is_constant = b < 200 ? b % 5 != 4 : b < 264;
      EXPECT_EQ((*r)->block_bytes(b) == 0, is_constant) << b;
      constant += is_constant;
      ASSERT_TRUE((*r)->read_block(b, got).ok()) << b;
      for (std::size_t j = 0; j < got.size(); ++j) {
        const std::uint16_t want = codes[b * 100 + j];
        if (want == kDontCareCode)
          ASSERT_EQ(got[j], b % 5 == 2 ? 2 : 0) << b;  // a constant block's code, else none given: 0
        else
          ASSERT_EQ(got[j], want) << b;
      }
    }
    EXPECT_EQ(constant, 160u + 64u);
    EXPECT_TRUE((*r)->verify_file_checksum().ok());
  }
}

// The block table's fields are checked on open (checksums repaired, so the
// field checks are what refuses): a constant block above the max code, a
// block longer than its positions allow, sizes that do not add up to their
// group's bytes; and so is each context's code in the codebook.
TEST(TableFile, RefusesBadBlockFieldsAndCodebooksVersion6) {
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K"), Metric::WDL);
  h.block_size = 1024;
  h.format_version = 6;  // the fixed-layout index
  std::vector<std::uint16_t> codes = make_codes(h.slots, 1, 4);  // max code 1
  for (std::uint64_t j = 0; j < 1024; ++j) codes[j] = 1;          // block 0: constant 1
  const fs::path p = test_dir() / "fields.wdl";
  ASSERT_TRUE(write_table(p, h, codes).ok());
  const Bytes full = read_bytes(p);
  auto r0 = TableReader::open(p);
  ASSERT_TRUE(r0.ok()) << r0.message();
  ASSERT_EQ((*r0)->header().max_code, 1);
  ASSERT_EQ((*r0)->header().format_version, 6);
  const std::uint64_t nb = (*r0)->num_blocks();
  const std::uint64_t table = kTableHeaderSize + table_layout::kCodebookSize + 16 * ((nb + 63) / 64) + 8;
  const int bits = table_layout::block_entry_bits(ValueEncoding::WdlRun, 1024);
  const fs::path bad = test_dir() / "fields_bad.wdl";
  const auto with_field = [&](std::uint64_t b, std::uint32_t f) {
    Bytes x = full;
    for (int i = 0; i < bits; ++i) x[table + (b * bits + i) / 8] &= static_cast<unsigned char>(~(1u << ((b * bits + i) % 8)));
    table_layout::put_bits(&x[table], b, bits, f);
    table_layout::repair_checksums(x);
    write_bytes(bad, x);
  };
  ASSERT_EQ(table_layout::get_bits(&full[table], 0, bits), 1u);  // block 0: constant code 1
  with_field(0, 1);
  EXPECT_TRUE(TableReader::open(bad).ok());  // unchanged: accepted
  with_field(0, 2);
  expect_refused(bad, "constant block above the max code");
  const std::uint32_t f1 = table_layout::get_bits(&full[table], 1, bits);
  ASSERT_GE(f1, 3u);
  with_field(1, f1 + 1);
  expect_refused(bad, "do not add up");
  with_field(1, 384 + 3);
  expect_refused(bad, "longer than its positions allow");
  with_field(1, 0);  // data block turned constant: its bytes are left over
  expect_refused(bad, "do not add up");
  // The bits after the last field (30 blocks x 9 bits = 270: bits 270, 271 of the last byte).
  ASSERT_EQ(nb * bits % 8, 6u);
  {
    Bytes x = full;
    x[table + nb * bits / 8] |= 0x80;
    table_layout::repair_checksums(x);
    write_bytes(bad, x);
    expect_refused(bad, "padding bits of the block table");
  }
  // Codebook: context 3 over-subscribed; symbol 255 given a length in
  // context 5 (after a run of 2: unused in this table of codes 0 and 1,
  // so its lengths were all 0 and the code is otherwise valid).
  for (int c : {3, 5}) {
    Bytes x = full;
    unsigned char* book = &x[kTableHeaderSize];
    for (int s = 0; s < 256; ++s) ASSERT_TRUE(c != 5 || book[5 * 256 + s] == 0);
    if (c == 3) book[3 * 256] = book[3 * 256 + 1] = book[3 * 256 + 2] = 1;
    else book[5 * 256 + 255] = 1;
    table_layout::repair_checksums(x);
    write_bytes(bad, x);
    expect_refused(bad, "bad Huffman code lengths");
  }
}

// A version-7 wdlrun file (fixed 1024-position blocks) with its compact
// index rebuilt after `edit` changed its code lengths or block fields; the
// blocks stay as they were, the checksums are made to match.
Bytes with_compact_index(const Bytes& full,
                         const std::function<void(std::vector<unsigned char>&, std::vector<std::uint32_t>&)>& edit) {
  using table_layout::get_le;
  const std::uint64_t nb = get_le(&full[48], 8), index = get_le(&full[80], 8);
  const std::uint64_t book = get_le(&full[kTableHeaderSize], 4), table = get_le(&full[kTableHeaderSize + 4], 4);
  const unsigned char* frames = &full[kTableHeaderSize + table_layout::kCompactIndexHead];
  std::vector<unsigned char> lengths(table_layout::kMaxCodebookSize), planes(2 * nb);
  EXPECT_EQ(ZSTD_decompress(lengths.data(), lengths.size(), frames, book), lengths.size());
  EXPECT_EQ(ZSTD_decompress(planes.data(), planes.size(), frames + book, table), planes.size());
  std::vector<std::uint32_t> fields(nb);
  for (std::uint64_t b = 0; b < nb; ++b) fields[b] = planes[b] | static_cast<std::uint32_t>(planes[nb + b]) << 8;
  edit(lengths, fields);
  std::vector<unsigned char> head;
  EXPECT_EQ(table_layout::compact_index_head(1024, lengths, fields, head), "");
  const std::uint64_t sums = (nb + 63) / 64 * 8;
  Bytes out(full.begin(), full.begin() + kTableHeaderSize);
  out.insert(out.end(), head.begin(), head.end());
  out.insert(out.end(), full.begin() + static_cast<std::ptrdiff_t>(kTableHeaderSize + index - sums), full.end());
  table_layout::put_le(&out[80], head.size() + sums, 8);
  table_layout::put_le(&out[56], out.size(), 8);
  table_layout::repair_checksums(out);
  return out;
}

// The same checks on a version-7 file, whose block fields and code lengths
// are zstd frames in a compact index (FORMAT.md 3.2), and the frames' own.
TEST(TableFile, RefusesBadBlockFieldsAndCodebooksVersion7) {
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K"), Metric::WDL);
  ASSERT_EQ(h.block_size, 1024u);
  std::vector<std::uint16_t> codes = make_codes(h.slots, 1, 4);  // max code 1
  for (std::uint64_t j = 0; j < 1024; ++j) codes[j] = 1;          // block 0: constant 1
  const fs::path p = test_dir() / "fields7.wdl";
  ASSERT_TRUE(write_table(p, h, codes).ok());
  const Bytes full = read_bytes(p);
  ASSERT_EQ(table_layout::get_le(&full[8], 2), 7u);
  const fs::path bad = test_dir() / "fields7_bad.wdl";
  const auto edited = [&](const std::function<void(std::vector<unsigned char>&, std::vector<std::uint32_t>&)>& edit) {
    write_bytes(bad, with_compact_index(full, edit));
  };
  edited([](auto&, auto& f) { EXPECT_EQ(f[0], 1u); });  // unchanged: accepted, every code read back
  {
    auto r = TableReader::open(bad);
    ASSERT_TRUE(r.ok()) << r.message();
    for (std::uint64_t slot = 0; slot < codes.size(); ++slot) ASSERT_EQ(*(*r)->get(slot), codes[slot]) << slot;
  }
  edited([](auto&, auto& f) { f[0] = 2; });
  expect_refused(bad, "constant block above the max code");
  edited([](auto&, auto& f) { f[1] += 1; });
  expect_refused(bad, "index does not span the data section");
  edited([](auto&, auto& f) { f[1] = 384 + 3; });
  expect_refused(bad, "longer than its positions allow");
  edited([](auto& l, auto&) { l[35 * 256] = l[35 * 256 + 1] = l[35 * 256 + 2] = 1; });  // context 35 over-subscribed
  expect_refused(bad, "bad Huffman code lengths");
  // The frames themselves: a changed byte, a size that is not the frame's.
  const std::uint64_t book = table_layout::get_le(&full[kTableHeaderSize], 4);
  const std::uint64_t frames = kTableHeaderSize + table_layout::kCompactIndexHead;
  for (std::uint64_t at : {frames, frames + book}) {  // a frame's magic number
    Bytes x = full;
    x[at] ^= 0x5A;
    table_layout::repair_checksums(x);
    write_bytes(bad, x);
    expect_refused(bad, at < frames + book ? "bad compressed codebook" : "bad compressed block table");
  }
  {
    Bytes x = full;
    table_layout::put_le(&x[kTableHeaderSize], book - 1, 4);
    table_layout::repair_checksums(x);
    write_bytes(bad, x);
    expect_refused(bad, "do not add up to its size");
  }
  {
    Bytes x = full;  // an index size below its group checksums
    table_layout::put_le(&x[80], 3, 8);
    table_layout::repair_checksums(x);
    write_bytes(bad, x);
    expect_refused(bad, "smaller than its group checksums");
  }
}

// Version-6 files (6 contexts, the fixed-layout index) are still read, and
// written on request.
TEST(TableFile, ReadsVersion6Wdl) {
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K1M"), Metric::WDL);
  std::vector<std::uint16_t> codes = make_codes(h.slots, 2, 9);
  for (std::uint64_t j = 0; j < codes.size(); j += 7) codes[j] = kDontCareCode;
  for (std::uint16_t version : {std::uint16_t{6}, kTableFormatVersion}) {
    h.format_version = version;
    const fs::path p = test_dir() / ("v" + std::to_string(version) + ".wdl");
    ASSERT_TRUE(write_table(p, h, codes).ok());
    auto r = TableReader::open(p);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ((*r)->header().format_version, version);
    EXPECT_EQ((*r)->header().index_bytes,
              version == 6 ? table_layout::fixed_index_bytes(ValueEncoding::WdlRun, 1024, (*r)->num_blocks())
                           : table_layout::get_le(&read_bytes(p)[80], 8));
    for (std::uint64_t slot = 0; slot < codes.size(); ++slot) {
      const auto got = (*r)->get(slot);
      ASSERT_TRUE(got.ok()) << version << " " << slot << ": " << got.message();
      if (codes[slot] != kDontCareCode) ASSERT_EQ(*got, codes[slot]) << version << " " << slot;
    }
    EXPECT_TRUE((*r)->verify_file_checksum().ok());
  }
  EXPECT_LT(fs::file_size(test_dir() / "v7.wdl"), fs::file_size(test_dir() / "v6.wdl"));
}

TEST(TableFile, SymmetricMaterial) {
  TableHeader h = default_table_header(rules_of(Variant::Thai), *Material::parse("1Kv1K"), Metric::WDL);
  EXPECT_EQ(h.slots, 32u * 31u);
  const auto codes = make_codes(h.slots, 2, 3);
  const fs::path p = test_dir() / "1Kv1K.wdl";
  ASSERT_TRUE(write_table(p, h, codes).ok());
  auto r = TableReader::open(p);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ((*r)->header().sides(), 1);
  EXPECT_EQ((*r)->header().variant, Variant::Thai);
  for (std::uint64_t i = 0; i < h.slots; ++i) ASSERT_EQ(*(*r)->get(i), codes[i]);
  const auto counts = count_codes(**r);
  ASSERT_TRUE(counts.ok());
  EXPECT_TRUE(counts->black_to_move.empty());
  EXPECT_GT(counts->derived_white_to_move, 0u);  // a king that can take the other
  EXPECT_EQ(counts->derived_black_to_move, 0u);
  EXPECT_EQ(counts->white_to_move[0] + counts->white_to_move[1] + counts->white_to_move[2] +
                counts->derived_white_to_move,
            h.slots);
}

TEST(TableFile, DeterministicBytesAndNoTemporaryLeft) {
  const Sample a = write_sample("det_a.dtw", Metric::DTW, ValueEncoding::U16Planes, 500);
  TableHeader h = a.header;
  ASSERT_TRUE(write_table(test_dir() / "det_b.dtw", h, a.codes, WriteOptions{1, false}).ok());
  ASSERT_TRUE(write_table(test_dir() / "det_c.dtw", h, a.codes, WriteOptions{2, true}).ok());
  EXPECT_EQ(read_bytes(a.path), read_bytes(test_dir() / "det_b.dtw"));
  EXPECT_EQ(read_bytes(a.path), read_bytes(test_dir() / "det_c.dtw"));
  // WdlRun blocks are coded at finish() a batch of blocks at a time, the
  // blocks of a batch by the threads: 7440 blocks of 4 codes are two batches.
  for (const std::uint16_t version : {kTableFormatVersion, std::uint16_t{6}}) {
    SCOPED_TRACE(version);
    const Sample w = write_sample("det_a.wdl", Metric::WDL, ValueEncoding::WdlRun, 4, 20, "2Kv1K", version);
    ASSERT_GT(w.header.slots / 4, 4096u);
    expect_round_trip(w);
    ASSERT_TRUE(write_table(test_dir() / "det_b.wdl", w.header, w.codes, WriteOptions{1, false}).ok());
    ASSERT_TRUE(write_table(test_dir() / "det_c.wdl", w.header, w.codes, WriteOptions{3, false}).ok());
    EXPECT_EQ(read_bytes(w.path), read_bytes(test_dir() / "det_b.wdl"));
    EXPECT_EQ(read_bytes(w.path), read_bytes(test_dir() / "det_c.wdl"));
  }
  for (const auto& e : fs::directory_iterator(test_dir()))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(TableFile, WriterRefusesBadInput) {
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K"), Metric::WDL);
  std::vector<std::uint16_t> codes(h.slots, 1);
  const fs::path p = test_dir() / "bad_input.wdl";
  EXPECT_FALSE(write_table(p, h, std::span(codes).first(10)).ok());
  codes[5] = 3;
  const Status s = write_table(p, h, codes);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(p.string()), std::string::npos);
  codes[5] = 0;
  TableHeader nc = h;
  nc.material = *Material::parse("1Kv2K");
  EXPECT_FALSE(write_table(p, nc, codes).ok());
  TableHeader dtw_wdl2 = h;
  dtw_wdl2.metric = Metric::DTW;
  EXPECT_FALSE(write_table(p, dtw_wdl2, codes).ok());
  TableHeader zero_block = h;
  zero_block.block_size = 0;
  EXPECT_FALSE(write_table(p, zero_block, codes).ok());
  EXPECT_FALSE(write_table(test_dir() / "no_such_dir" / "x.wdl", h, codes).ok());
  EXPECT_FALSE(fs::exists(p));
}

TEST(TableFile, RefusesMissingEmptyForeignAndNewer) {
  expect_refused(test_dir() / "does_not_exist.wdl", "cannot open");
  const fs::path empty = test_dir() / "empty.wdl";
  write_bytes(empty, {});
  expect_refused(empty, "empty file");
  const fs::path foreign = test_dir() / "foreign.wdl";
  const std::string text = "This is not a table but a rather long text file, longer than one header of 128 bytes "
                           "so that only the magic can tell.................................................";
  write_bytes(foreign, Bytes(text.begin(), text.end()));
  expect_refused(foreign, "not a damka table");
  expect_refused(test_dir(), "not a regular file");

  const Sample s = write_sample("newer.wdl");
  Bytes b = read_bytes(s.path);
  b[8] = kTableFormatVersion + 1;
  write_bytes(s.path, b);
  expect_refused(s.path, "newer format (version " + std::to_string(kTableFormatVersion + 1));
  const auto r = TableReader::open(s.path);
  EXPECT_EQ(r.code(), ErrorCode::Corrupt);
}

// Version 4 had the same layout (only its distance files stored their
// drawn positions): still read.
TEST(TableFile, ReadsVersion4) {
  for (Metric metric : {Metric::WDL, Metric::DTW}) {
    const Sample s = write_sample(metric == Metric::WDL ? "v4.wdl" : "v4.dtw", metric,
                                  metric == Metric::WDL ? ValueEncoding::WdlRun : ValueEncoding::U16Planes, 1000, 0,
                                  "2Kv1K", 6);  // version 6's layout
    Bytes c = read_bytes(s.path);
    EXPECT_EQ(c[8], 6);
    table_layout::put_le(&c[8], 4, 2);
    table_layout::put_le(&c[120], XXH3_64bits(c.data(), 120), 8);
    write_bytes(s.path, c);
    auto r = TableReader::open(s.path);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ((*r)->header().format_version, 4);
    for (std::uint64_t slot = 0; slot < s.codes.size(); slot += 97) EXPECT_EQ(*(*r)->get(slot), s.codes[slot]);
    if (metric == Metric::DTW) {
      EXPECT_TRUE(count_codes(**r).ok());  // version 4 stored its draws
    }
  }
}

// A version-1 file (header written by hand as version 1 laid it out: zstd
// blocks behind a 16-byte-per-block table) is refused with a message saying
// to regenerate it.
TEST(TableFile, RefusesVersion1WithARegenerateMessage) {
  Bytes b(kTableHeaderSize + 16 * 2 + 8 + 32 + 16, 0);
  const unsigned char magic[8] = {0x89, 'D', 'M', 'K', '\r', '\n', 0x1A, '\n'};
  std::copy(magic, magic + 8, b.begin());
  using table_layout::put_le;
  put_le(&b[8], 1, 2);     // version 1
  put_le(&b[10], 128, 2);  // header size
  b[13] = 0;               // WDL
  b[14] = 1;
  b[15] = 1;               // wdl2
  b[24] = 0, b[25] = 1, b[26] = 0, b[27] = 1;  // 1Kv1K
  b[28] = 1;
  put_le(&b[32], 992, 8);
  put_le(&b[40], 512, 4);
  put_le(&b[48], 2, 8);
  put_le(&b[56], b.size(), 8);
  put_le(&b[120], XXH3_64bits(b.data(), 120), 8);
  const fs::path p = test_dir() / "v1.wdl";
  write_bytes(p, b);
  expect_refused(p, "format version 1 is no longer read; regenerate it with `damka generate`");
  EXPECT_EQ(TableReader::open(p).code(), ErrorCode::Corrupt);
  // Also a v2 file relabelled as version 1.
  const Sample s = write_sample("relabelled_v1.wdl");
  Bytes c = read_bytes(s.path);
  c[8] = 1;
  put_le(&c[120], XXH3_64bits(c.data(), 120), 8);
  write_bytes(s.path, c);
  expect_refused(s.path, "regenerate it");
}

// Version-2 and -3 files (wdlrun with u32 or u16 block entries and one
// Huffman code) are refused the same way: version 4's index has another
// layout.
TEST(TableFile, RefusesVersions2And3WithARegenerateMessage) {
  for (int version : {2, 3}) {
    const Sample s = write_sample("relabelled_v" + std::to_string(version) + ".wdl");
    Bytes c = read_bytes(s.path);
    table_layout::put_le(&c[8], static_cast<std::uint64_t>(version), 2);
    table_layout::put_le(&c[120], XXH3_64bits(c.data(), 120), 8);
    write_bytes(s.path, c);
    expect_refused(s.path, "format version " + std::to_string(version) +
                               " is no longer read; regenerate it with `damka generate`");
    EXPECT_EQ(TableReader::open(s.path).code(), ErrorCode::Corrupt);
  }
}

TEST(TableFile, RefusesTruncated) {
  // Every length of a small table (1Kv1K, symmetric: 992 slots), both encodings.
  for (ValueEncoding enc : {ValueEncoding::WdlRun, ValueEncoding::Wdl2}) {
    const Sample small = write_sample("small.wdl", Metric::WDL, enc, 100, 30, "1Kv1K");
    const Bytes all = read_bytes(small.path);
    const fs::path cut = test_dir() / "truncated_small.wdl";
    for (std::size_t n = 1; n < all.size(); ++n) {
      write_bytes(cut, Bytes(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n)));
      expect_refused(cut, "truncated");
    }
  }
  const Sample s = write_sample("full.wdl");
  const Bytes full = read_bytes(s.path);
  const fs::path cut = test_dir() / "truncated.wdl";
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{100}, std::size_t{127},
                        std::size_t{128}, std::size_t{200}, full.size() / 2, full.size() - 17, full.size() - 1}) {
    write_bytes(cut, Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
    expect_refused(cut, "truncated");
  }
  Bytes longer = full;
  longer.push_back(0);
  write_bytes(cut, longer);
  expect_refused(cut, "extra bytes");
}

TEST(TableFile, RefusesCorruptedBytes) {
  // 298 blocks of 100: five checksum groups of 64 blocks.
  const Sample s = write_sample("corrupt_src.wdl", Metric::WDL, ValueEncoding::WdlRun, 100, 30);
  const Bytes full = read_bytes(s.path);
  const fs::path bad = test_dir() / "corrupt.wdl";
  // In the header: refused at open.
  for (std::size_t at : {12, 20, 33, 100, 121}) {
    Bytes b = full;
    b[at] ^= 0x10;
    write_bytes(bad, b);
    expect_refused(bad, "header");
  }
  // In the index (its head, the codebook frame, the block-table frame, the
  // group checksums): refused at open.
  Bytes b;
  const std::size_t index = table_layout::get_le(&full[80], 8), book = table_layout::get_le(&full[128], 4);
  for (std::size_t at : {std::size_t{3}, 8 + book / 2, 8 + book + 3, index - 5}) {
    b = full;
    b[kTableHeaderSize + at] ^= 1;
    write_bytes(bad, b);
    expect_refused(bad, "index");
  }
  // In a block: that block is refused on read, the others still read.  (The
  // last two blocks with bytes, in the last group: many blocks of this
  // table are constant, with no bytes, since most of its codes are don't care.)
  auto r0 = TableReader::open(s.path);
  ASSERT_TRUE(r0.ok());
  const std::uint64_t nb = (*r0)->num_blocks();
  std::vector<std::uint64_t> start(nb + 1, full.size() - 16);
  for (std::uint64_t k = nb; k-- > 0;) start[k] = start[k + 1] - (*r0)->block_bytes(k);
  std::vector<std::uint64_t> with_bytes;
  for (std::uint64_t k = 0; k < nb; ++k)
    if ((*r0)->block_bytes(k) > 0) with_bytes.push_back(k);
  ASSERT_GE(with_bytes.size(), 2u);
  const std::uint64_t k1 = with_bytes[with_bytes.size() - 2], k2 = with_bytes.back();
  ASSERT_EQ(k1 / 64, k2 / 64);
  b = full;
  b[start[k1] + (*r0)->block_bytes(k1) / 2] ^= 0x40;  // in block k1
  write_bytes(bad, b);
  std::vector<std::uint16_t> codes;
  for (const FileAccess access : {FileAccess::Map, FileAccess::Pread}) {
    auto r = TableReader::open(bad, access);
    ASSERT_TRUE(r.ok()) << r.message();
    const Status st = (*r)->read_block(k1, codes);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find(bad.string()), std::string::npos);
    EXPECT_NE(st.message().find("checksum"), std::string::npos);
    EXPECT_EQ(st.code(), ErrorCode::Corrupt);
    EXPECT_FALSE((*r)->get(k1 * s.header.block_size).ok());
    EXPECT_FALSE((*r)->read_block(k2, codes).ok());  // same group of 64 blocks: not checked, not read
    EXPECT_TRUE((*r)->read_block(0, codes).ok());
  }
  auto r = TableReader::open(bad);
  ASSERT_TRUE(r.ok());
  const Status whole = (*r)->verify_file_checksum();
  ASSERT_FALSE(whole.ok());
  EXPECT_NE(whole.message().find("file checksum"), std::string::npos);
  // In the trailer.
  b = full;
  b[full.size() - 12] ^= 1;
  write_bytes(bad, b);
  r = TableReader::open(bad);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE((*r)->verify_file_checksum().ok());
  b = full;
  b[full.size() - 1] ^= 1;
  write_bytes(bad, b);
  expect_refused(bad, "end marker");
}

// Any single corrupted byte: the file is refused at open, or the whole-file
// check fails and every block either fails to read or reads the true codes.
RC_GTEST_PROP(TableFile, CorruptedByteNeverGivesAWrongValue, ()) {
  static const Sample dtw = write_sample("prop_src.dtw", Metric::DTW, ValueEncoding::U16Planes, 3000);
  static const Sample wdl = write_sample("prop_src.wdl", Metric::WDL, ValueEncoding::WdlRun, 3000);
  const Sample& s = *rc::gen::arbitrary<bool>() ? dtw : wdl;
  const Bytes full = read_bytes(s.path);
  Bytes b = full;
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, b.size());
  b[at] ^= *rc::gen::inRange<int>(1, 256);
  const fs::path p = test_dir() / ("prop_corrupt" + s.path.extension().string());
  write_bytes(p, b);
  auto r = TableReader::open(p);
  if (!r.ok()) return;
  RC_ASSERT(!(*r)->verify_file_checksum().ok());
  std::vector<std::uint16_t> codes;
  for (std::uint64_t blk = 0; blk < (*r)->num_blocks(); ++blk) {
    if (!(*r)->read_block(blk, codes).ok()) continue;
    for (std::size_t j = 0; j < codes.size(); ++j) RC_ASSERT(codes[j] == s.codes[blk * 3000 + j]);
  }
}

// Random bytes (sometimes behind a valid magic or header prefix) never crash
// the reader.
RC_GTEST_PROP(TableFile, RandomBytesNeverCrash, ()) {
  static const Sample s = write_sample("prop_prefix.wdl");
  static const Bytes full = read_bytes(s.path);
  Bytes b = *rc::gen::container<Bytes>(rc::gen::arbitrary<unsigned char>());
  const std::size_t keep = *rc::gen::element<std::size_t>(0, 8, 128, 200, full.size() - 16);
  for (std::size_t i = 0; i < keep && i < full.size(); ++i) {
    if (i < b.size()) b[i] = full[i]; else b.push_back(full[i]);
  }
  const fs::path p = test_dir() / "prop_random.wdl";
  write_bytes(p, b);
  auto r = TableReader::open(p);
  if (!r.ok()) {
    RC_ASSERT(r.message().find(p.string()) != std::string::npos);
    return;
  }
  std::vector<std::uint16_t> codes;
  for (std::uint64_t blk = 0; blk < (*r)->num_blocks(); ++blk) (void)(*r)->read_block(blk, codes);
  (void)(*r)->verify_file_checksum();
}

// Random tables (material, metric, encoding, block size, codes with runs,
// noise and don't-care entries) read back exactly where not don't-care; the
// bytes do not depend on the thread count or on how add() portions are cut.
RC_GTEST_PROP(TableFile, RandomTablesRoundTripWhateverThePortionsAndThreads, ()) {
  const char* materials[] = {"1Kv1K", "1Kv1M", "2Kv1K", "1K1Mv1K"};
  const Material m = *Material::parse(*rc::gen::elementOf(std::vector<const char*>(std::begin(materials), std::end(materials))));
  const Metric metric = *rc::gen::element(Metric::WDL, Metric::DTW, Metric::DTC);
  const ValueEncoding enc = metric == Metric::WDL
                                ? *rc::gen::element(ValueEncoding::WdlRun, ValueEncoding::Wdl2, ValueEncoding::U16)
                                : *rc::gen::element(ValueEncoding::U16Planes, ValueEncoding::U16);
  TableHeader h = default_table_header(rules_of(Variant::Russian), m, metric);
  h.encoding = enc;
  h.block_size = *rc::gen::inRange<std::uint32_t>(1, 5000);
  h.zstd_level = 1;
  const std::uint16_t top = metric == Metric::WDL ? *rc::gen::inRange<std::uint16_t>(0, 3)
                                                  : *rc::gen::inRange<std::uint16_t>(0, 700);
  std::vector<std::uint16_t> codes = make_codes(h.slots, top, *rc::gen::arbitrary<unsigned>());
  add_dont_care(codes, *rc::gen::inRange(0, 90), *rc::gen::arbitrary<unsigned>());
  const fs::path a = test_dir() / "rc_a", b = test_dir() / "rc_b";
  RC_ASSERT(write_table(a, h, codes, WriteOptions{1, false}).ok());
  auto builder = TableBuilder::create(b, h, WriteOptions{2, false});
  RC_ASSERT(builder.ok());
  for (std::size_t at = 0; at < codes.size();) {
    const std::size_t n = std::min<std::size_t>(codes.size() - at, *rc::gen::inRange<std::size_t>(1, 9000));
    RC_ASSERT((*builder)->add(std::span(codes).subspan(at, n)).ok());
    at += n;
  }
  RC_ASSERT((*builder)->finish().ok());
  RC_ASSERT(read_bytes(a) == read_bytes(b));
  auto r = TableReader::open(a);
  RC_ASSERT(r.ok());
  const std::uint16_t max_code = (*r)->header().max_code;
  RC_ASSERT(max_code == max_stored(codes));
  std::vector<std::uint16_t> got;
  for (std::uint64_t blk = 0; blk < (*r)->num_blocks(); ++blk) {
    if (const Status st = (*r)->read_block(blk, got); !st.ok()) RC_FAIL(st.message());
    for (std::size_t j = 0; j < got.size(); ++j) RC_ASSERT(matches(got[j], codes[blk * h.block_size + j], max_code));
  }
}

// Tables larger than one batch of the writer (at least 2^18 codes): whole
// batches handed to add() are encoded where they lie, the rest through the
// pending buffer.  Portions that cross and fill batches in every way give
// the bytes of one add() on one thread, for each encoding and 1 or 3 threads.
TEST(TableFile, PortionsLargerThanABatchGiveTheSameBytes) {
  const Material m = *Material::parse("3Kv2K");  // 4,027,520 slots
  for (const Metric metric : {Metric::WDL, Metric::DTW}) {
    TableHeader h = default_table_header(rules_of(Variant::Russian), m, metric);
    h.zstd_level = 1;
    ASSERT_GT(h.slots, std::uint64_t{1} << 18);
    std::vector<std::uint16_t> codes = make_codes(h.slots, metric == Metric::WDL ? 2 : 300, 11);
    add_dont_care(codes, 40, 5);
    const fs::path whole = test_dir() / "batch_whole", cut = test_dir() / "batch_cut";
    ASSERT_TRUE(write_table(whole, h, codes, WriteOptions{1, false}).ok());
    const Bytes expect = read_bytes(whole);
    for (const int threads : {1, 3})
      for (const std::vector<std::size_t>& portions :
           {std::vector<std::size_t>{1000, 300000}, std::vector<std::size_t>{262144, 1}, std::vector<std::size_t>{5}}) {
        auto builder = TableBuilder::create(cut, h, WriteOptions{threads, false});
        ASSERT_TRUE(builder.ok());
        std::size_t at = 0;
        for (std::size_t i = 0; at < codes.size(); ++i) {  // the last portion size repeats
          const std::size_t n = std::min(codes.size() - at, portions[std::min(i, portions.size() - 1)]);
          ASSERT_TRUE((*builder)->add(std::span(codes).subspan(at, n)).ok());
          at += n;
        }
        ASSERT_TRUE((*builder)->finish().ok());
        EXPECT_TRUE(read_bytes(cut) == expect) << metric_name(metric) << ", " << threads << " threads, first portion "
                                           << portions[0];
      }
  }
}

// Valid files with random bytes changed and every checksum repaired (so the
// changes reach the field checks and the decoders) never crash the reader:
// open fails with a message, or every block read fails or gives the block's
// number of codes, each within the header's max code.
RC_GTEST_PROP(TableFile, MutatedFilesWithRepairedChecksumsNeverCrash, ()) {
  static const Sample wdl = write_sample("mut_src.wdl", Metric::WDL, ValueEncoding::WdlRun, 500, 30);
  static const Sample dtw = write_sample("mut_src.dtw", Metric::DTW, ValueEncoding::U16Planes, 700, 30);
  const Sample& s = *rc::gen::arbitrary<bool>() ? wdl : dtw;
  Bytes b = read_bytes(s.path);
  const int changes = *rc::gen::inRange(1, 8);
  for (int i = 0; i < changes; ++i) {
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, b.size());
    b[at] = *rc::gen::arbitrary<unsigned char>();
  }
  table_layout::repair_checksums(b);
  const fs::path p = test_dir() / "prop_mutated";
  write_bytes(p, b);
  auto r = TableReader::open(p);
  if (!r.ok()) {
    RC_ASSERT(r.message().find(p.string()) != std::string::npos);
    return;
  }
  const TableHeader& h = (*r)->header();
  std::vector<std::uint16_t> codes;
  for (std::uint64_t blk = 0; blk < (*r)->num_blocks(); ++blk) {
    if (!(*r)->read_block(blk, codes).ok()) continue;
    RC_ASSERT(codes.size() == (*r)->block_positions(blk));
    for (std::uint16_t c : codes) RC_ASSERT(c <= h.max_code);
  }
}

TEST(RunCodec, RunLengthsAreTheOnesInFormatMd) {
  const std::vector<std::uint32_t> spec = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 24, 30, 36,
                                           44, 54, 66, 80, 98, 120, 146, 178, 217, 265, 324, 395, 482, 588, 717, 875,
                                           1067, 1302, 1588, 1938, 2364, 2884, 3519, 4293, 5237, 6389, 7795, 9510,
                                           11602, 14155, 17269, 21068, 25703, 31358, 38256, 46673, 56941, 69468};
  EXPECT_EQ(std::vector<std::uint32_t>(table_layout::kRunLength.begin(), table_layout::kRunLength.end()), spec);
}

TEST(RunCodec, CodeLengthsStayWithinTwelveBitsAndFormAPrefixCode) {
  std::array<std::uint64_t, 256> counts{};
  for (int s = 0; s < 255; ++s) counts[s] = std::uint64_t{1} << (s % 40);  // very skewed: unlimited Huffman goes deep
  const auto lengths = table_layout::code_lengths(counts);
  double kraft = 0;
  for (int s = 0; s < 256; ++s) {
    EXPECT_LE(lengths[s], table_layout::kMaxCodeLength);
    EXPECT_EQ(lengths[s] == 0, counts[s] == 0) << s;
    if (lengths[s] != 0) kraft += std::ldexp(1.0, -lengths[s]);
  }
  EXPECT_LE(kraft, 1.0);
  for (int contexts : {table_layout::kContexts, table_layout::kHistoryContexts}) {
    table_layout::RunCode code;
    table_layout::CodeLengths book{};
    for (int c = 0; c < contexts; ++c) std::copy(lengths.begin(), lengths.end(), book.begin() + 256 * c);
    const auto used = [&](const table_layout::CodeLengths& b) {
      return std::span<const std::uint8_t>(b.data(), 256 * static_cast<std::size_t>(contexts));
    };
    EXPECT_TRUE(code.init(used(book)));
    EXPECT_EQ(code.contexts(), contexts);
    table_layout::CodeLengths over = book;
    const int last = contexts - 1;
    over[last * 256 + 0] = over[last * 256 + 1] = over[last * 256 + 2] = 1;  // the last context: three codes of one bit
    EXPECT_FALSE(code.init(used(over)));
    EXPECT_FALSE(code.init(std::span<const std::uint8_t>(book.data(), 256 * 7)));  // neither 6 nor 36 contexts
    // No symbol at all is a valid codebook (every block constant), but no
    // block of symbols decodes with it.
    EXPECT_TRUE(code.init(used(table_layout::CodeLengths{})));
    std::vector<unsigned char> packed(8);
    for (unsigned x = 0; x < 256; ++x) EXPECT_FALSE(code.decode_packed(std::vector<unsigned char>{static_cast<unsigned char>(x)}, 4, packed.data()));
  }
}

// Version 7's 36 contexts: 6 x the class of the symbol two before + the
// class of the one before (FORMAT.md 3.4).
TEST(RunCodec, HistoryContextsAreTheOnesInFormatMd) {
  using table_layout::code_context;
  EXPECT_EQ(code_context(0, 27, 6), 1);           // 6 contexts: the class of the symbol before
  EXPECT_EQ(code_context(4, 81 + 116, 6), 5);
  EXPECT_EQ(code_context(0, 27, 36), 1);          // a block's second symbol: class 0 before the first
  EXPECT_EQ(code_context(1, 81 + 58, 36), 6 * 1 + 4);
  EXPECT_EQ(code_context(6 * 1 + 4, 80, 36), 6 * 4 + 2);
  EXPECT_EQ(code_context(35, 0, 36), 6 * 5 + 0);
}

// The context of a symbol is what the symbol before it was (FORMAT.md 3.4):
// the last code of a literal, or 3 + the value of a run.
TEST(RunCodec, ContextsAreTheOnesInFormatMd) {
  EXPECT_EQ(table_layout::next_context(0), 0);
  EXPECT_EQ(table_layout::next_context(26), 0);   // 2 + 3*2 + 9*2 + 27*0
  EXPECT_EQ(table_layout::next_context(27), 1);
  EXPECT_EQ(table_layout::next_context(80), 2);   // 2 2 2 2
  EXPECT_EQ(table_layout::next_context(81), 3);   // run of 0, 4 codes
  EXPECT_EQ(table_layout::next_context(81 + 57), 3);
  EXPECT_EQ(table_layout::next_context(81 + 58), 4);  // run of 1
  EXPECT_EQ(table_layout::next_context(81 + 116), 5);  // run of 2
  EXPECT_EQ(table_layout::next_context(254), 5);
}

// Codes -> symbols -> bits -> 2-bit codes is the identity; a decoder given
// any other byte string never writes past its output and mostly refuses it.
RC_GTEST_PROP(RunCodec, SymbolsRoundTripAndGarbageIsRefusedSafely, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(1, 3000);
  std::vector<std::uint16_t> codes = make_codes(n, 2, *rc::gen::arbitrary<unsigned>());
  std::vector<unsigned char> symbols;
  table_layout::run_symbols(codes, symbols);
  const int contexts = *rc::gen::element(table_layout::kContexts, table_layout::kHistoryContexts);
  table_layout::SymbolCounts counts{};
  int ctx = 0;
  for (unsigned char x : symbols) {
    ++counts[ctx][x];
    ctx = table_layout::code_context(ctx, x, contexts);
  }
  table_layout::RunCode code;
  const table_layout::CodeLengths book = table_layout::context_code_lengths(counts, contexts);
  RC_ASSERT(code.init(std::span<const std::uint8_t>(book.data(), 256 * static_cast<std::size_t>(contexts))));
  RC_ASSERT(code.encoded_bytes(symbols) == [&] {
    std::vector<unsigned char> b;
    code.encode(symbols, b);
    return static_cast<std::uint64_t>(b.size());
  }());
  std::vector<unsigned char> bits;
  code.encode(symbols, bits);
  std::vector<unsigned char> packed((n + 3) / 4 + 16, 0xEE);
  RC_ASSERT(code.decode_packed(bits, n, packed.data()));
  for (std::size_t j = 0; j < n; ++j) RC_ASSERT(((packed[j / 4] >> (2 * (j % 4))) & 3) == codes[j]);
  for (std::size_t j = (n + 3) / 4; j < packed.size(); ++j) RC_ASSERT(packed[j] == 0xEE);
  if (!bits.empty()) bits.pop_back();  // one byte short
  RC_ASSERT(!code.decode_packed(bits, n, packed.data()) || bits.empty());
  const auto garbage = *rc::gen::container<std::vector<unsigned char>>(rc::gen::arbitrary<unsigned char>());
  (void)code.decode_packed(garbage, n, packed.data());
  for (std::size_t j = (n + 3) / 4; j < packed.size(); ++j) RC_ASSERT(packed[j] == 0xEE);
}

}  // namespace
}  // namespace damka
