// Table files: writer/reader round trips and refusal of bad files.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fstream>
#include <random>
#include <thread>
#include <atomic>
#include <unistd.h>

#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/value_oracle.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;

// A directory of this process, removed at exit.
fs::path test_dir() {
  struct Dir {
    fs::path path = fs::temp_directory_path() / ("damka_format_test_" + std::to_string(::getpid()));
    Dir() { fs::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };
  static const Dir dir;
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

struct Sample {
  TableHeader header;
  std::vector<std::uint16_t> codes;
  fs::path path;
};

// 2Kv1K: 14880 placements, 29760 slots; small blocks so there are many.
Sample write_sample(const std::string& name, Metric metric = Metric::WDL,
                    ValueEncoding enc = ValueEncoding::Wdl2, std::uint32_t block_size = 1000) {
  Sample s;
  s.header = default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K"), metric);
  s.header.encoding = enc;
  s.header.block_size = block_size;
  s.header.zstd_level = 3;
  s.codes = make_codes(s.header.slots, metric == Metric::WDL ? 2 : 301, 7);
  s.path = test_dir() / name;
  const Status st = write_table(s.path, s.header, s.codes);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

void expect_refused(const fs::path& p, const std::string& problem) {
  const auto r = TableReader::open(p);
  ASSERT_FALSE(r.ok()) << p;
  EXPECT_NE(r.message().find(p.string()), std::string::npos) << r.message();
  EXPECT_NE(r.message().find(problem), std::string::npos) << r.message();
}

void expect_round_trip(const Sample& s) {
  auto r = TableReader::open(s.path);
  ASSERT_TRUE(r.ok()) << r.message();
  const TableHeader& h = (*r)->header();
  EXPECT_EQ(h.material, s.header.material);
  EXPECT_EQ(h.metric, s.header.metric);
  EXPECT_EQ(h.encoding, s.header.encoding);
  EXPECT_EQ(h.fingerprint, rules_of(Variant::Russian).fingerprint());
  EXPECT_EQ(h.slots, s.codes.size());
  EXPECT_EQ(h.file_size, fs::file_size(s.path));
  EXPECT_EQ(h.max_code, *std::max_element(s.codes.begin(), s.codes.end()));
  EXPECT_TRUE(check_table_rules(h, rules_of(Variant::Russian)).ok());
  EXPECT_FALSE(check_table_rules(h, rules_of(Variant::English)).ok());
  std::vector<std::uint16_t> block;
  for (std::uint64_t b = 0; b < (*r)->num_blocks(); ++b) {
    ASSERT_TRUE((*r)->read_block(b, block).ok());
    ASSERT_EQ(block.size(), (*r)->block_positions(b));
    for (std::size_t j = 0; j < block.size(); ++j) ASSERT_EQ(block[j], s.codes[b * h.block_size + j]);
  }
  for (std::uint64_t slot = 0; slot < h.slots; slot += 37) ASSERT_EQ(*(*r)->get(slot), s.codes[slot]);
  EXPECT_FALSE((*r)->get(h.slots).ok());
  EXPECT_FALSE((*r)->read_block((*r)->num_blocks(), block).ok());
  EXPECT_TRUE((*r)->verify_file_checksum().ok());
}

TEST(TableFile, RoundTripEveryEncoding) {
  expect_round_trip(write_sample("wdl2.wdl"));
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
  const Sample s = write_sample("counts.dtw", Metric::DTW, ValueEncoding::U16Planes, 999);
  auto r = TableReader::open(s.path);
  ASSERT_TRUE(r.ok());
  const auto counts = count_codes(**r);
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
  b[8] = 2;  // format version 2
  write_bytes(s.path, b);
  expect_refused(s.path, "newer format (version 2");
}

TEST(TableFile, RefusesTruncated) {
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
  const Sample s = write_sample("corrupt_src.wdl");
  const Bytes full = read_bytes(s.path);
  const fs::path bad = test_dir() / "corrupt.wdl";
  // In the header: refused at open.
  for (std::size_t at : {12, 20, 33, 100, 121}) {
    Bytes b = full;
    b[at] ^= 0x10;
    write_bytes(bad, b);
    expect_refused(bad, "header");
  }
  // In the block table: refused at open.
  Bytes b = full;
  b[kTableHeaderSize + 20] ^= 1;
  write_bytes(bad, b);
  expect_refused(bad, "block table");
  // In a block: that block is refused on read, the others still read.
  auto r0 = TableReader::open(s.path);
  ASSERT_TRUE(r0.ok());
  const std::uint64_t nb = (*r0)->num_blocks();
  b = full;
  b[full.size() - 16 - (*r0)->block_bytes(nb - 1) - 3] ^= 0x40;  // inside block nb - 2
  write_bytes(bad, b);
  auto r = TableReader::open(bad);
  ASSERT_TRUE(r.ok()) << r.message();
  std::vector<std::uint16_t> codes;
  const Status st = (*r)->read_block(nb - 2, codes);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(bad.string()), std::string::npos);
  EXPECT_NE(st.message().find("checksum"), std::string::npos);
  EXPECT_FALSE((*r)->get((nb - 2) * s.header.block_size).ok());
  EXPECT_TRUE((*r)->read_block(0, codes).ok());
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
  static const Sample s = write_sample("prop_src.dtw", Metric::DTW, ValueEncoding::U16Planes, 3000);
  static const Bytes full = read_bytes(s.path);
  Bytes b = full;
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, b.size());
  b[at] ^= *rc::gen::inRange<int>(1, 256);
  const fs::path p = test_dir() / "prop_corrupt.dtw";
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

}  // namespace
}  // namespace damka
