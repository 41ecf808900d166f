// generate() under the faults of a test Env (GenerateOptions::env): a full
// disk at any point of a build is a clean error that leaves no partial
// table and no temporary file, and the same command then builds everything;
// an output folder that cannot be made is an I/O error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "damka/generate.hpp"
#include "damka/output_lock.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "fault_env.hpp"
#include "generator/generate_helpers.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

TEST(GenerateEnv, FullDiskIsACleanErrorAndTheSameCommandResumes) {
  const Rules& r = rules_of(Variant::Russian);
  const fs::path dir = fs::temp_directory_path() / ("damka_generate_env_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  // Writes of a healthy 3-piece build through the test Env.
  testing::FaultEnv counting(testing::FaultPlan{});
  GenerateOptions o = test::options(dir, 3, 2);
  o.env = &counting;
  ASSERT_TRUE(generate(r, o).ok());
  const int writes = counting.writes();
  ASSERT_GT(writes, 10);
  std::vector<std::string> reference;
  for (const auto& e : fs::directory_iterator(table_dir(dir, r))) reference.push_back(test::slurp(e.path()));
  for (int n : {1, writes / 3, writes / 2, writes - 1}) {
    SCOPED_TRACE("failing write " + std::to_string(n));
    fs::remove_all(dir);
    testing::FaultPlan plan;
    plan.fail_write = n;
    plan.write_errno = ENOSPC;
    testing::FaultEnv full(plan);
    o.env = &full;
    auto failed = generate(r, o);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.message().find("No space left on device"), std::string::npos) << failed.message();
    EXPECT_TRUE(temp_table_files(table_dir(dir, r)).empty());
    // Every table file there is complete and valid.
    for (const auto& e : fs::directory_iterator(table_dir(dir, r))) {
      auto file = TableReader::open(e.path());
      ASSERT_TRUE(file.ok()) << file.message();
      EXPECT_TRUE((*file)->verify_file_checksum().ok()) << e.path();
    }
    o.env = nullptr;  // the default (POSIX) Env
    ASSERT_TRUE(generate(r, o).ok());
    std::vector<std::string> got;
    for (const auto& e : fs::directory_iterator(table_dir(dir, r))) got.push_back(test::slurp(e.path()));
    std::sort(got.begin(), got.end());
    std::sort(reference.begin(), reference.end());
    EXPECT_TRUE(got == reference);
  }
  fs::remove_all(dir);
}

// The output folder cannot be made (Env::make_dirs refused): the lock and
// generate() fail with an I/O error naming it, and nothing is made.
TEST(GenerateEnv, AnOutputFolderThatCannotBeMadeIsAnIoError) {
  const Rules& r = rules_of(Variant::Russian);
  const fs::path dir = fs::temp_directory_path() / ("damka_generate_mkdir_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  testing::FaultPlan plan;
  plan.mkdir_errno = EACCES;
  testing::FaultEnv env(plan);
  auto lock = OutputLock::acquire(r, dir, env);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.code(), ErrorCode::Io) << lock.message();
  GenerateOptions o = test::options(dir, 3, 2);
  o.env = &env;
  auto built = generate(r, o);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.code(), ErrorCode::Io) << built.message();
  EXPECT_NE(built.message().find("Permission denied"), std::string::npos) << built.message();
  EXPECT_FALSE(fs::exists(dir));
}

// A present table loaded into memory for the materials that convert into
// it (resident_tables.hpp) is read through the run's Env: a read failing
// with EIO there is an I/O error naming the file, no table of the material
// being built is left behind, and the same command then builds the rest.
TEST(GenerateEnv, AReadErrorWhileLoadingAPresentTableIsAnIoErrorNamingTheFile) {
  const Rules& r = rules_of(Variant::Russian);
  const fs::path dir = fs::temp_directory_path() / ("damka_generate_load_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_TRUE(generate(r, test::options(dir, 3, 2)).ok());
  testing::FaultEnv env{testing::FaultPlan{}};
  GenerateOptions o = test::options(dir, 4, 2);
  o.env = &env;
  GenerateCallbacks cb;
  std::string loading;
  cb.notice = [&](const std::string& s) {
    if (s.rfind("loading ", 0) != 0 || !loading.empty()) return;
    loading = s;
    testing::FaultPlan eio;
    eio.read_errno = EIO;
    env.set_plan(eio);  // the building thread, no other thread reading
  };
  auto built = generate(r, o, cb);
  ASSERT_FALSE(loading.empty());
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.code(), ErrorCode::Io) << built.message();
  EXPECT_NE(built.message().find("cannot load it into memory"), std::string::npos) << built.message();
  EXPECT_NE(built.message().find(table_dir(dir, r).string()), std::string::npos) << built.message();
  for (const auto& e : fs::directory_iterator(table_dir(dir, r)))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  env.set_plan(testing::FaultPlan{});
  auto again = generate(r, o);
  ASSERT_TRUE(again.ok()) << again.message();
  fs::remove_all(dir);
}

// load_solved_table reads its own files and its successors' through the
// Env it is given: reads failing with EIO are an I/O error naming a file;
// through a healthy test Env it gives the tables of the default one.
TEST(GenerateEnv, LoadSolvedTableReadsThroughItsEnv) {
  const Rules& r = rules_of(Variant::Russian);
  const fs::path dir = fs::temp_directory_path() / ("damka_load_env_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_TRUE(generate(r, test::options(dir, 3, 2)).ok());
  const Material m = *Material::parse("2Kv1K");
  auto plain = load_solved_table(r, dir, m);
  ASSERT_TRUE(plain.ok()) << plain.message();
  testing::FaultEnv counting(testing::FaultPlan{});
  auto through = load_solved_table(r, dir, m, nullptr, counting);
  ASSERT_TRUE(through.ok()) << through.message();
  EXPECT_TRUE(through->dtw == plain->dtw && through->dtc == plain->dtc);
  testing::FaultPlan plan;
  plan.read_errno = EIO;
  testing::FaultEnv failing(plan);
  auto bad = load_solved_table(r, dir, m, nullptr, failing);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), ErrorCode::Io) << bad.message();
  EXPECT_NE(bad.message().find(".wdl"), std::string::npos) << bad.message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace damka
