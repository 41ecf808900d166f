// ResultsJournal (results_journal.hpp): results come back while the
// material's files are unchanged, go away when one changes or disappears,
// survive a reopening, and a file that is no journal of the kind asked for
// is refused and left as it is.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include "damka/results_journal.hpp"
#include "damka/table_paths.hpp"
#include "support/temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

struct Folder {
  testing::TempDir dir{"journal"};
  const Rules& rules = rules_of(Variant::Russian);
  const Material m = *Material::parse("2Kv1K");
  fs::path file(Metric metric) const { return table_path(dir.path, rules, m, metric); }
  void write(Metric metric, const std::string& bytes) const {
    fs::create_directories(file(metric).parent_path());
    std::ofstream(file(metric), std::ios::binary) << bytes;
  }
};

const std::vector<Metric> kTwo = {Metric::WDL, Metric::DTW};

TEST(ResultsJournal, GivesBackWhatWasRecordedWhileTheFilesAreUnchanged) {
  Folder f;
  f.write(Metric::WDL, "wdl");
  f.write(Metric::DTW, "dtw");
  const fs::path path = f.dir.path / "run.journal";
  {
    auto j = ResultsJournal::open(path, "verify", default_env());
    ASSERT_TRUE(j.ok()) << j.message();
    EXPECT_FALSE(j->find(f.rules, f.dir.path, f.m, kTwo));
    EXPECT_FALSE(fs::exists(path));  // nothing written before the first record
    ASSERT_TRUE(j->record(f.rules, f.dir.path, f.m, kTwo, R"({"positions": 7})").ok());
    auto r = j->find(f.rules, f.dir.path, f.m, kTwo);
    ASSERT_TRUE(r);
    EXPECT_EQ(nlohmann::json::parse(*r), nlohmann::json({{"positions", 7}}));
    // Asked with other metrics (a DTC file more): not the same files.
    EXPECT_FALSE(j->find(f.rules, f.dir.path, f.m, {Metric::WDL}));
    // Another variant's family: nothing.
    EXPECT_FALSE(j->find(rules_of(Variant::English), f.dir.path, f.m, kTwo));
  }
  // Reopened: still there.
  auto j = ResultsJournal::open(path, "verify", default_env());
  ASSERT_TRUE(j.ok()) << j.message();
  ASSERT_TRUE(j->find(f.rules, f.dir.path, f.m, kTwo));
  // A file rewritten (another size and time): gone.
  f.write(Metric::DTW, "dtw, rebuilt");
  EXPECT_FALSE(j->find(f.rules, f.dir.path, f.m, kTwo));
  ASSERT_TRUE(j->record(f.rules, f.dir.path, f.m, kTwo, R"({"positions": 8})").ok());
  ASSERT_TRUE(j->find(f.rules, f.dir.path, f.m, kTwo));
  // Only its time changed: gone too.
  fs::last_write_time(f.file(Metric::WDL), fs::last_write_time(f.file(Metric::WDL)) + std::chrono::seconds(5));
  EXPECT_FALSE(j->find(f.rules, f.dir.path, f.m, kTwo));
  ASSERT_TRUE(j->record(f.rules, f.dir.path, f.m, kTwo, R"({"positions": 9})").ok());
  // Forgotten, in the file too.
  ASSERT_TRUE(j->forget(f.rules, f.m).ok());
  EXPECT_FALSE(j->find(f.rules, f.dir.path, f.m, kTwo));
  auto again = ResultsJournal::open(path, "verify", default_env());
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->find(f.rules, f.dir.path, f.m, kTwo));
  // A file missing: nothing recorded, nothing found.
  fs::remove(f.file(Metric::DTW));
  ASSERT_TRUE(j->record(f.rules, f.dir.path, f.m, kTwo, R"({"positions": 10})").ok());
  EXPECT_FALSE(j->find(f.rules, f.dir.path, f.m, kTwo));
  // A result that is no JSON object is refused.
  EXPECT_EQ(j->record(f.rules, f.dir.path, f.m, {Metric::WDL}, "[1]").code(), ErrorCode::InvalidArgument);
}

// A result read the tables its material converts into: rewriting one of
// them, or adding a file of theirs, makes it computed again.
TEST(ResultsJournal, AResultIsGoneWhenATableItReadsChanges) {
  Folder f;
  const Material m = *Material::parse("1K1Mv1K");
  const std::vector<Material> reads = successors_closure(m);
  ASSERT_FALSE(reads.empty());
  const Material s = reads.front();
  auto write = [&](const Material& x, Metric metric, const std::string& bytes) {
    const fs::path p = table_path(f.dir.path, f.rules, x, metric);
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
  };
  write(m, Metric::WDL, "m");
  write(s, Metric::WDL, "s");
  auto j = ResultsJournal::open(f.dir.path / "run.journal", "stats", default_env());
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(j->record(f.rules, f.dir.path, m, {Metric::WDL}, "{}").ok());
  EXPECT_TRUE(j->find(f.rules, f.dir.path, m, {Metric::WDL}));
  write(s, Metric::WDL, "s, rebuilt");
  EXPECT_FALSE(j->find(f.rules, f.dir.path, m, {Metric::WDL}));
  ASSERT_TRUE(j->record(f.rules, f.dir.path, m, {Metric::WDL}, "{}").ok());
  EXPECT_TRUE(j->find(f.rules, f.dir.path, m, {Metric::WDL}));
  write(s, Metric::DTW, "a file more");
  EXPECT_FALSE(j->find(f.rules, f.dir.path, m, {Metric::WDL}));
  ASSERT_TRUE(j->record(f.rules, f.dir.path, m, {Metric::WDL}, "{}").ok());
  fs::remove(table_path(f.dir.path, f.rules, s, Metric::DTW));
  EXPECT_FALSE(j->find(f.rules, f.dir.path, m, {Metric::WDL}));
}

TEST(ResultsJournal, AFileThatIsNoJournalOfTheKindIsRefusedAndLeftAsItIs) {
  Folder f;
  f.write(Metric::WDL, "wdl");
  const fs::path verify = f.dir.path / "verify.journal";
  {
    auto j = ResultsJournal::open(verify, "verify", default_env());
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(j->record(f.rules, f.dir.path, f.m, {Metric::WDL}, "{}").ok());
  }
  const fs::path other = f.dir.path / "other.json";
  std::ofstream(other) << R"({"format": "damka verify journal", "version": 1, "variants": {}})";
  for (const auto& [path, kind] : {std::pair{verify, "stats"}, std::pair{f.file(Metric::WDL), "verify"},
                                   std::pair{other, "verify"}}) {
    const auto size = fs::file_size(path);
    auto j = ResultsJournal::open(path, kind, default_env());
    ASSERT_FALSE(j.ok()) << path;
    EXPECT_EQ(j.code(), ErrorCode::InvalidArgument) << path;
    EXPECT_NE(j.message().find(path.string()), std::string::npos) << j.message();
    EXPECT_EQ(fs::file_size(path), size);
  }
  // A folder where the journal should be: refused too (not a regular file).
  auto j = ResultsJournal::open(f.dir.path, "verify", default_env());
  EXPECT_FALSE(j.ok());
}

}  // namespace
}  // namespace damka
