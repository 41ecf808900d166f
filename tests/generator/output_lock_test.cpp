// One generate per output folder: the lock refuses a second run naming the
// holder, and stale temporary files of killed runs are removed and reported.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "damka/generate.hpp"
#include "damka/output_lock.hpp"
#include "damka/table_paths.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

// The tests' temporary folders (temp_dir.hpp).
using damka::testing::TempDir;

TEST(OutputLock, SecondRunRefusesNamingTheHolder) {
  TempDir tmp;
  const Rules& r = rules_of(Variant::Russian);
  auto held = OutputLock::acquire(r, tmp.path);
  ASSERT_TRUE(held.ok()) << held.message();

  auto second = OutputLock::acquire(r, tmp.path);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.message().find("pid " + std::to_string(::getpid())), std::string::npos) << second.message();
  EXPECT_NE(second.message().find("another damka generate"), std::string::npos) << second.message();

  GenerateOptions opt;
  opt.max_pieces = 2;
  opt.out = tmp.path;
  auto blocked = generate(r, opt);
  ASSERT_FALSE(blocked.ok());
  EXPECT_NE(blocked.message().find("another damka generate"), std::string::npos) << blocked.message();
  EXPECT_FALSE(fs::exists(table_path(tmp.path, r, *Material::parse("1Kv1K"), Metric::WDL)));  // nothing built

  // Another family in the same folder is not blocked.
  EXPECT_TRUE(OutputLock::acquire(rules_of(Variant::English), tmp.path).ok());

  held = Expected<OutputLock>(Error("released"));  // drops the lock
  auto built = generate(r, opt);
  ASSERT_TRUE(built.ok()) << built.message();
  EXPECT_TRUE(OutputLock::acquire(r, tmp.path).ok());  // generate released it
}

TEST(OutputLock, StaleTemporaryFilesAreRemovedAndReported) {
  TempDir tmp;
  const Rules& r = rules_of(Variant::Russian);
  const fs::path family = table_dir(tmp.path, r);
  fs::create_directories(family);
  const fs::path stale1 = family / "1Kv1K.dtw.tmp.999999.0";
  const fs::path stale2 = family / "1K1Mv1M.wdl.tmp.16213.19";
  const fs::path unrelated = family / "notes.tmp.1.2";
  for (const auto& p : {stale1, stale2, unrelated}) std::ofstream(p) << "partial";

  GenerateOptions opt;
  opt.max_pieces = 2;
  opt.out = tmp.path;
  GenerateCallbacks cb;
  std::vector<std::string> notices;
  cb.notice = [&](const std::string& n) { notices.push_back(n); };
  auto built = generate(r, opt, cb);
  ASSERT_TRUE(built.ok()) << built.message();
  EXPECT_FALSE(fs::exists(stale1));
  EXPECT_FALSE(fs::exists(stale2));
  EXPECT_TRUE(fs::exists(unrelated));  // not damka's pattern: left alone
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_NE(notices[0].find("1K1Mv1M.wdl.tmp.16213.19"), std::string::npos) << notices[0];
  EXPECT_NE(notices[1].find("1Kv1K.dtw.tmp.999999.0"), std::string::npos) << notices[1];
  EXPECT_TRUE(temp_table_files(family).empty());
}

}  // namespace
}  // namespace damka
