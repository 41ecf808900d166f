// Table files under faults: a FIFO never blocks the reader, errors say
// whether the file is missing, unreadable now (I/O) or damaged, and the
// temporary-file pattern is recognised.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <vector>

#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

// A directory of this process, removed at exit.
const fs::path& fault_dir() {
  static const testing::TempDir dir("format_faults");
  return dir.path;
}

fs::path write_small_table(const std::string& name) {
  const TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("1Kv1K"), Metric::WDL);
  std::vector<std::uint16_t> codes(h.slots, 0);
  const fs::path p = fault_dir() / name;
  EXPECT_TRUE(write_table(p, h, codes).ok());
  return p;
}

TEST(TableFaults, FifoIsRefusedWithoutBlocking) {
  const fs::path fifo = fault_dir() / "1Kv1K.wdl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto result = std::async(std::launch::async, [&] { return TableReader::open(fifo); });
  if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    // The reader is stuck in open(): a writer unblocks it so the test ends.
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    ADD_FAILURE() << "TableReader::open blocked on a FIFO";
    result.wait();
    if (fd >= 0) ::close(fd);
    return;
  }
  const auto r = result.get();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("not a regular file"), std::string::npos) << r.message();
  EXPECT_EQ(r.code(), ErrorCode::Corrupt);
  fs::remove(fifo);
}

TEST(TableFaults, ErrorCodesTellMissingFromUnreadableFromDamaged) {
  const auto missing = TableReader::open(fault_dir() / "no_such.wdl");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.code(), ErrorCode::NotFound);

  const fs::path good = write_small_table("good.wdl");
  ASSERT_TRUE(TableReader::open(good).ok());

  // Out of file descriptors: an I/O error, not corruption.
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &old), 0);
  rlimit low = old;
  low.rlim_cur = 64;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> fds;
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) fds.push_back(fd);
  const auto exhausted = TableReader::open(good);
  for (int fd : fds) ::close(fd);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &old), 0);
  ASSERT_FALSE(exhausted.ok());
  EXPECT_EQ(exhausted.code(), ErrorCode::Io) << exhausted.message();
  EXPECT_NE(exhausted.message().find("Too many open files"), std::string::npos) << exhausted.message();
  EXPECT_TRUE(TableReader::open(good).ok());

  // Damaged: Corrupt.
  const fs::path damaged = fault_dir() / "damaged.wdl";
  fs::copy_file(good, damaged);
  fs::resize_file(damaged, fs::file_size(good) - 1);
  const auto bad = TableReader::open(damaged);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), ErrorCode::Corrupt);
}

// Found by fuzzing (fuzz/fuzz_table.cpp): a WDL table in u16 encoding whose
// codes go above 2 had valid checksums and was read.
TEST(TableFaults, WdlTableWithCodesAboveTwoIsRefusedInAnyEncoding) {
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("1Kv1K"), Metric::DTW);
  std::vector<std::uint16_t> codes(h.slots, 5);  // win in 2
  const fs::path p = fault_dir() / "wdl_u16.wdl";
  ASSERT_TRUE(write_table(p, h, codes).ok());
  // Relabel it WDL (byte 13) with a valid header checksum.
  std::vector<unsigned char> bytes;
  {
    std::ifstream in(p, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[13] = static_cast<unsigned char>(Metric::WDL);
  const std::uint64_t sum = XXH3_64bits(bytes.data(), 120);
  for (int i = 0; i < 8; ++i) bytes[120 + i] = static_cast<unsigned char>(sum >> (8 * i));
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(bytes.data()),
                                                             static_cast<std::streamsize>(bytes.size()));
  const auto r = TableReader::open(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("WDL table with max code 5"), std::string::npos) << r.message();
  EXPECT_EQ(r.code(), ErrorCode::Corrupt);
}

TEST(TableFaults, TemporaryFilePattern) {
  EXPECT_EQ(temp_table_file_pid("1K1Mv1M.dtw.tmp.16213.19"), 16213);
  EXPECT_EQ(temp_table_file_pid("3Kv1K.wdl.tmp.1.0"), 1);
  EXPECT_EQ(temp_table_file_pid("2K1Mv2K.levels.tmp.5.6"), 5);  // the generator's level file
  EXPECT_EQ(temp_table_file_pid("2K1Mv2K.codes.tmp.7.8"), 7);   // its saved codes (saved_codes.hpp)
  EXPECT_EQ(temp_table_file_pid("notes.codes.tmp.7.8"), -1);
  EXPECT_EQ(temp_table_file_pid("3Kv1K.wdl"), -1);
  EXPECT_EQ(temp_table_file_pid("3Kv1K.txt.tmp.1.0"), -1);
  EXPECT_EQ(temp_table_file_pid("notes.wdl.tmp.1.0"), -1);
  EXPECT_EQ(temp_table_file_pid("3Kv1K.wdl.tmp.x.0"), -1);
  EXPECT_EQ(temp_table_file_pid("3Kv1K.wdl.tmp.12"), -1);
  EXPECT_EQ(temp_table_file_pid("a.tmp"), -1);
  // write_table's own temporary name has the pattern (a kill leaves exactly this).
  const fs::path dir = fault_dir() / "family";
  fs::create_directories(dir);
  std::ofstream(dir / "2Kv1K.dtc.tmp.77.3") << "x";
  std::ofstream(dir / "2Kv1K.dtc") << "x";
  const auto found = temp_table_files(dir);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].filename(), "2Kv1K.dtc.tmp.77.3");
  EXPECT_TRUE(temp_table_files(dir / "missing").empty());
}

}  // namespace
}  // namespace damka
