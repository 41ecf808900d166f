// A table file changed under an open Tablebase (a byte flipped in place, the
// file truncated, another file renamed over it) is detected: its probes
// answer IoError naming the change, never a wrong value, and the process
// does not die.  Every block read from disk is checked against its group's
// checksum, so a flipped byte is never decoded.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "damka/index.hpp"
#include "damka/slots.hpp"
#include "damka/probe.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

namespace fs = std::filesystem;
const Rules& russian() { return rules_of(Variant::Russian); }

// 400 random positions of 2Kv1K, either side to move.
std::vector<Position> positions() {
  const MaterialIndex idx(mat("2Kv1K"));
  std::mt19937_64 rng(27);
  std::vector<Position> out;
  while (out.size() < 400) {
    Position p = position_at(idx, rng() % table_slots(idx));
    if (rng() & 1) p = p.flipped();
    if (p.is_valid()) out.push_back(p);
  }
  return out;
}

std::unique_ptr<Tablebase> open(const fs::path& dir, bool map) {
  TablebaseOptions o;
  o.cache_bytes = 0;  // every probe reads its blocks
  o.map_files = map;
  auto tb = Tablebase::open(russian(), dir, o);
  EXPECT_TRUE(tb.ok()) << tb.message();
  return std::move(*tb);
}

struct Tally {
  int ok = 0, wrong = 0, io = 0, other = 0;
  std::string problem;
};

// Probes every position's DTW on a thread of its own (whose reader keeps no
// verified group yet) and compares with the pristine tables.
Tally probe_all(const Tablebase& tb, const Tablebase& ref, const std::vector<Position>& ps) {
  Tally t;
  std::thread([&] {
    for (const Position& p : ps) {
      const ProbeResult r = tb.probe_dtw(p), want = ref.probe_dtw(p);
      EXPECT_TRUE(want.ok());
      if (r.ok()) {
        ++t.ok;
        t.wrong += r.value.encode() != want.value.encode();
      } else if (r.status == ProbeStatus::IoError) {
        ++t.io;
        if (t.problem.empty()) t.problem = Tablebase::thread_last_problem();
      } else {
        ++t.other;
      }
    }
  }).join();
  return t;
}

fs::path dtw_file(const fs::path& dir) { return table_path(dir, russian(), mat("2Kv1K"), Metric::DTW); }

TEST(ChangedFile, AByteFlippedInPlaceIsDetectedNeverServed) {
  const auto ref = open(tables(Variant::Russian, 3), false);
  const auto ps = positions();
  for (bool map : {false, true}) {
    SCOPED_TRACE(map ? "mapped" : "pread");
    const fs::path dir = copy_tables(tables(Variant::Russian, 3), russian(), "flip");
    const auto tb = open(dir, map);
    Tally before = probe_all(*tb, *ref, ps);
    EXPECT_EQ(before.ok, static_cast<int>(ps.size()));
    EXPECT_EQ(before.wrong, 0);
    const fs::path f = dtw_file(dir);
    flip_byte(f, fs::file_size(f) * 2 / 3);  // in the blocks
    Tally after = probe_all(*tb, *ref, ps);
    EXPECT_EQ(after.wrong, 0);
    EXPECT_GT(after.io, 0);
    EXPECT_EQ(after.other, 0);
    EXPECT_NE(after.problem.find("changed on disk since it was opened (it was written to)"), std::string::npos)
        << after.problem;
    EXPECT_NE(after.problem.find(f.string()), std::string::npos) << after.problem;
    // From then on nothing of that file is served: only positions that need
    // no 2Kv1K DTW entry are still answered (draws, read from the WDL file;
    // captures, valued through the smaller tables).
    Tally later = probe_all(*tb, *ref, ps);
    EXPECT_EQ(later.wrong, 0);
    int needing_the_file = 0;
    for (const Position& p : ps) {
      const ProbeResult r = tb->probe_dtw(p);
      if (has_capture(russian(), p) || ref->probe_dtw(p).value.wdl == Wdl::Draw) continue;
      ++needing_the_file;
      EXPECT_EQ(r.status, ProbeStatus::IoError);
    }
    EXPECT_GT(needing_the_file, 5);
  }
}

TEST(ChangedFile, ATruncatedFileIsAnIoErrorNotACrash) {
  const auto ref = open(tables(Variant::Russian, 3), false);
  const auto ps = positions();
  const fs::path dir = copy_tables(tables(Variant::Russian, 3), russian(), "truncate");
  const auto tb = open(dir, false);
  EXPECT_EQ(probe_all(*tb, *ref, ps).ok, static_cast<int>(ps.size()));
  const fs::path f = dtw_file(dir);
  fs::resize_file(f, fs::file_size(f) / 2);
  const Tally after = probe_all(*tb, *ref, ps);
  EXPECT_EQ(after.wrong, 0);
  EXPECT_GT(after.io, 0);
  EXPECT_NE(after.problem.find("changed on disk since it was opened (its size is"), std::string::npos)
      << after.problem;
}

TEST(ChangedFile, AFileReplacedByRenameIsNoticedWithinASecond) {
  const auto ref = open(tables(Variant::Russian, 3), false);
  const auto ps = positions();
  const fs::path dir = copy_tables(tables(Variant::Russian, 3), russian(), "replace");
  const auto tb = open(dir, false);
  EXPECT_EQ(probe_all(*tb, *ref, ps).ok, static_cast<int>(ps.size()));
  // Another valid table file (the DTC one) renamed over the DTW file.
  const fs::path f = dtw_file(dir), other = dir / "other.tmp";
  fs::copy_file(table_path(dir, russian(), mat("2Kv1K"), Metric::DTC), other);
  fs::rename(other, f);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const Tally after = probe_all(*tb, *ref, ps);
  EXPECT_EQ(after.wrong, 0);
  EXPECT_GT(after.io, 0);
  EXPECT_NE(after.problem.find("another file was put in its place"), std::string::npos) << after.problem;
  // A Tablebase opened now reads the new file as what it is.
  EXPECT_NE(Tablebase::open(russian(), dir).ok(), false);
}

TEST(ChangedFile, TheReaderChecksEveryGroupItReadsNotOnlyTheFirstTime) {
  // A reader that has verified a group, and a byte of it flipped in place:
  // a thread reading that group afresh gets an error, never the flipped
  // byte decoded.
  const fs::path dir = copy_tables(tables(Variant::Russian, 3), russian(), "reread");
  const fs::path f = dtw_file(dir);
  auto reader = TableReader::open(f);
  ASSERT_TRUE(reader.ok()) << reader.message();
  std::vector<std::uint16_t> codes;
  for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) ASSERT_TRUE((*reader)->read_block(b, codes).ok());
  flip_byte(f, fs::file_size(f) * 2 / 3);
  Status s;
  std::thread([&] {
    for (std::uint64_t b = 0; b < (*reader)->num_blocks() && s.ok(); ++b) s = (*reader)->read_block(b, codes);
  }).join();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_TRUE((*reader)->changed());
  EXPECT_NE(s.message().find("it was written to"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace damka::probe_test
