// A hostile user plants a symbolic link or a hard link at every name
// `damka generate` could predict (the lock, the table writer's and the
// level spill file's temporary names, the rank notes, the stale files it
// cleans up): the victim files stay as they were, and the build is the same.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "damka/engine.hpp"
#include "damka/generate.hpp"
#include "damka/output_lock.hpp"
#include "damka/solver.hpp"
#include "damka/table_paths.hpp"
#include "generator/generate_helpers.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;
using test::options;
using test::slurp;

// The tests' temporary folders (temp_dir.hpp).
using damka::testing::TempDir;

const std::string kPrecious = "precious bytes that no build may overwrite\n";

struct Victims {
  fs::path soft, hard;  // what the symbolic links and the hard links point to
  explicit Victims(const fs::path& dir) : soft(dir / "victim-soft"), hard(dir / "victim-hard") {
    std::ofstream(soft) << kPrecious;
    std::ofstream(hard) << kPrecious;
  }
  // Plants a symbolic link to `soft` at even n and a hard link to `hard` at odd n.
  void plant(const fs::path& at, int n) const {
    if (n % 2 == 0)
      fs::create_symlink(soft, at);
    else
      fs::create_hard_link(hard, at);
  }
  void expect_intact() const {
    EXPECT_EQ(slurp(soft), kPrecious);
    EXPECT_EQ(slurp(hard), kPrecious);
  }
};

TEST(PlantedLinks, LockFileLinksAreRefusedAndTheTargetsKept) {
  const Rules& r = rules_of(Variant::Russian);
  for (int n : {0, 1}) {
    TempDir d;
    const fs::path out = d.path / "out";
    fs::create_directories(out);
    Victims v(d.path);
    v.plant(output_lock_path(r, out), n);
    auto built = generate(r, options(out, 2, 1));
    ASSERT_FALSE(built.ok()) << n;
    EXPECT_NE(built.message().find(n == 0 ? "symbolic link" : "hard links"), std::string::npos) << built.message();
    EXPECT_NE(built.message().find(output_lock_path(r, out).string()), std::string::npos) << built.message();
    v.expect_intact();
    EXPECT_FALSE(fs::exists(table_path(out, r, *Material::parse("1Kv1K"), Metric::WDL)));
  }
}

TEST(PlantedLinks, LockIsNotTruncatedAndNamesItsHolder) {
  TempDir d;
  const Rules& r = rules_of(Variant::Russian);
  const fs::path lock = output_lock_path(r, d.path);
  fs::create_directories(d.path);
  // A long older record: the new holder is written over it, the file never truncated.
  std::ofstream(lock) << std::string(1000, 'x');
  {
    auto held = OutputLock::acquire(r, d.path);
    ASSERT_TRUE(held.ok()) << held.message();
    EXPECT_EQ(fs::file_size(lock), 1000u);
    auto second = OutputLock::acquire(r, d.path);
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.message().find("pid " + std::to_string(::getpid())), std::string::npos) << second.message();
  }
  EXPECT_EQ(fs::file_size(lock), 1000u);
}

TEST(PlantedLinks, TemporaryNamesOfThisProcessAreNeverWrittenThrough) {
  const Rules& r = rules_of(Variant::Russian);
  TempDir b;

  // Links at every name the old scheme predicted for this pid: the table
  // writer's <table>.tmp.<pid>.<counter> (and its .sym scratch), and the
  // level file <material>.levels.tmp.<pid>.0.
  const fs::path family = table_dir(b.path, r);
  fs::create_directories(family);
  Victims v(b.path);
  const std::string pid = std::to_string(::getpid());
  int n = 0;
  std::vector<fs::path> planted;
  for (const Material& m : build_order(4)) {
    const auto at = [&](const std::string& name) {
      planted.push_back(family / name);
      v.plant(planted.back(), n++);
    };
    at(m.name() + ".levels.tmp." + pid + ".0");
    for (const char* metric : {"wdl", "dtw", "dtc"})
      for (int c = 0; c < 16; ++c) {
        at(m.name() + "." + metric + ".tmp." + pid + "." + std::to_string(c));
        at(m.name() + "." + metric + ".tmp." + pid + "." + std::to_string(c) + ".sym");
      }
  }
  // The largest material's levels go to a temporary file (its minimum is
  // planned with no room for any move graph).
  GenerateOptions o = options(b.path, 4, 2);
  o.memory_budget = 0;
  for (const Material& m : build_order(4))
    o.memory_budget = std::max(o.memory_budget, plan_memory(m, o.metrics, 2, 16u << 20, 0).minimum);
  auto built = generate(r, o);
  ASSERT_TRUE(built.ok()) << built.message();
  int spilled = 0;
  for (const TableReport& t : *built) spilled += t.spilled;
  EXPECT_GE(spilled, 1);
  v.expect_intact();
  for (const auto& p : planted) EXPECT_TRUE(fs::symlink_status(p).type() != fs::file_type::not_found) << p;
  // Every table complete and valid (the same bytes as a build in memory: Scale tests).
  for (const Material& m : build_order(4)) {
    const Status s = check_material_files(r, b.path, m, true);
    EXPECT_TRUE(s.ok()) << s.message();
  }
}

TEST(PlantedLinks, CleanupRemovesOnlyRegularFilesItRecognises) {
  const Rules& r = rules_of(Variant::Russian);
  TempDir d;
  const fs::path family = table_dir(d.path, r);
  fs::create_directories(family);
  Victims v(d.path);
  const fs::path sym = family / "1Kv1K.dtw.tmp.999999.0";      // a link to a victim
  const fs::path hard = family / "1Kv1K.wdl.tmp.999999.1";     // a second name of a victim
  const fs::path folder = family / "1Kv1K.dtc.tmp.999999.2";   // a folder
  const fs::path stale = family / "2Kv1K.wdl.tmp.999999.3";    // what a killed run leaves
  v.plant(sym, 0);
  v.plant(hard, 1);
  fs::create_directories(folder / "inside");
  std::ofstream(stale) << "partial";
  // A symbolic link at a rank note's name, and a real stale note.
  const fs::path note_link = rank_note_path(r, d.path, 3);
  const fs::path note = rank_note_path(r, d.path, 1);
  v.plant(note_link, 0);
  std::ofstream(note) << "rank 1 of 2 (pid 1 on h) was building 2Kv1K (2026-01-01 00:00:00 UTC)\n";

  GenerateCallbacks cb;
  std::vector<std::string> notices;
  cb.notice = [&](const std::string& s) { notices.push_back(s); };
  auto built = generate(r, options(d.path, 2, 1), cb);
  ASSERT_TRUE(built.ok()) << built.message();
  v.expect_intact();
  EXPECT_TRUE(fs::is_symlink(sym));
  EXPECT_TRUE(fs::is_directory(folder / "inside"));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(hard));  // only the extra name goes; the victim keeps its bytes
  EXPECT_TRUE(fs::is_symlink(note_link));
  EXPECT_FALSE(fs::exists(note));  // a plain resume clears a killed job's rank notes
  std::string all;
  for (const auto& s : notices) all += s + "\n";
  EXPECT_NE(all.find(sym.string() + ": not a regular file, left alone"), std::string::npos) << all;
  EXPECT_NE(all.find(folder.string() + ": not a regular file, left alone"), std::string::npos) << all;
  EXPECT_NE(all.find("removed " + stale.string()), std::string::npos) << all;
  EXPECT_NE(all.find("a previous run did not finish; when it stopped, rank 1 of 2"), std::string::npos) << all;
}

}  // namespace
}  // namespace damka
