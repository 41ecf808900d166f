// The generation driver and the verifier: files, determinism across thread
// counts, resuming, dry runs, and detection of wrong stored values.
#include <gtest/gtest.h>

#include "damka/slots.hpp"
#include "damka/value_oracle.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "damka/generate.hpp"
#include "generator/generate_helpers.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "damka/verify.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

// The tests' temporary folders (temp_dir.hpp).
using damka::testing::TempDir;

using test::options;
using test::slurp;

TEST(Generate, ByteIdenticalForAnyThreadCount) {
  TempDir a, b;
  const Rules& r = rules_of(Variant::Russian);
  ASSERT_TRUE(generate(r, options(a.path, 3, 1)).ok());
  ASSERT_TRUE(generate(r, options(b.path, 3, 2)).ok());
  int files = 0;
  for (const auto& e : fs::directory_iterator(table_dir(a.path, r))) {
    const fs::path other = table_dir(b.path, r) / e.path().filename();
    ASSERT_TRUE(fs::exists(other)) << other;
    EXPECT_EQ(slurp(e.path()), slurp(other)) << e.path().filename();
    ++files;
  }
  EXPECT_EQ(files, 9 * 3);
}

TEST(Generate, ResumesSkippingValidTablesAndRebuildsDamagedOnes) {
  TempDir d;
  const Rules& r = rules_of(Variant::English);
  auto first = generate(r, options(d.path, 3, 2));
  ASSERT_TRUE(first.ok()) << first.message();
  for (const TableReport& t : *first) EXPECT_EQ(t.action, TableReport::Action::Built);
  const Material damaged = *Material::parse("2Kv1M");
  const fs::path victim = table_path(d.path, r, damaged, Metric::DTC);
  const std::string good = slurp(victim);
  {
    std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(good.size() - 3));
    f.put(static_cast<char>(good[good.size() - 3] ^ 0x5A));
  }
  fs::remove(table_path(d.path, r, *Material::parse("1Kv1K"), Metric::WDL));
  auto plan = plan_generation(r, options(d.path, 3, 1));
  ASSERT_TRUE(plan.ok());
  auto second = generate(r, options(d.path, 3, 2));
  ASSERT_TRUE(second.ok()) << second.message();
  int rebuilt = 0;
  for (const TableReport& t : *second) {
    const bool expect_rebuild = t.material == damaged || t.material == *Material::parse("1Kv1K");
    EXPECT_EQ(t.action == TableReport::Action::Built, expect_rebuild) << t.material.name();
    rebuilt += t.action == TableReport::Action::Built;
  }
  EXPECT_EQ(rebuilt, 2);
  EXPECT_EQ(slurp(victim), good);
}

TEST(Generate, DryRunListsWithoutBuilding) {
  TempDir d;
  const Rules& r = rules_of(Variant::Thai);
  auto plan = plan_generation(r, options(d.path, 4, 1));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), build_order(4).size());
  std::uint64_t total = 0;
  for (const TableReport& t : *plan) {
    EXPECT_EQ(t.action, TableReport::Action::Planned);
    EXPECT_EQ(t.positions, table_slots(t.material));
    total += t.positions;
  }
  EXPECT_GT(total, 1000000u);
  EXPECT_FALSE(fs::exists(table_dir(d.path, r)));
}

TEST(Generate, OnlyOneMaterialBuildsItsDependencies) {
  TempDir d;
  const Rules& r = rules_of(Variant::Russian);
  GenerateOptions o = options(d.path, 4, 2);
  o.only = *Material::parse("1Kv3K");  // any orientation
  auto res = generate(r, o);
  ASSERT_TRUE(res.ok()) << res.message();
  EXPECT_EQ(res->back().material.name(), "3Kv1K");
  EXPECT_TRUE(check_material_files(r, d.path, *Material::parse("3Kv1K"), true).ok());
  EXPECT_FALSE(fs::exists(table_path(d.path, r, *Material::parse("2Kv2K"), Metric::WDL)));
}

TEST(Generate, UnwritableDirectoryIsAnError) {
  GenerateOptions o = options("/proc/damka-cannot-write-here", 2, 1);
  auto res = generate(rules_of(Variant::Russian), o);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.message().find("/proc/damka-cannot-write-here"), std::string::npos) << res.message();
}

TEST(Verify, CleanTablesPassAndATamperedValueIsReportedWithItsFen) {
  TempDir d;
  const Rules& r = rules_of(Variant::Brazilian);
  ASSERT_TRUE(generate(r, options(d.path, 3, 2)).ok());
  auto clean = verify_tables(r, d.path, VerifyOptions(2), {});
  ASSERT_TRUE(clean.ok()) << clean.message();
  EXPECT_EQ(clean->tables.size(), 9u);
  for (const VerifyReport& v : clean->tables) EXPECT_EQ(v.mismatches, 0u) << v.material.name();

  // Rewrite 2Kv1K's DTW with one stored win made a ply longer, and every
  // capture position's entry (derived: never read, FORMAT.md) with garbage.
  const Material m = *Material::parse("2Kv1K");
  auto t = load_solved_table(r, d.path, m);
  ASSERT_TRUE(t.ok());
  std::size_t changed = 0, derived = 0;
  const MaterialIndex index(m);
  for (std::size_t i = 0; i < t->dtw.size(); ++i)
    if (is_derived(r, position_at(index, i))) {
      t->dtw[i] = Value::loss(77).encode();
      ++derived;
    }
  for (std::size_t i = 0; i < t->dtw.size(); ++i)
    if (!is_derived(r, position_at(index, i)) && Value::decode(t->dtw[i]).wdl == Wdl::Win) {
      t->dtw[i] = Value::win(Value::decode(t->dtw[i]).plies + 2).encode();
      changed = i;
      break;
    }
  ASSERT_GT(derived, 0u);
  ASSERT_TRUE(write_table(table_path(d.path, r, m, Metric::DTW), default_table_header(r, m, Metric::DTW), t->dtw).ok());
  std::vector<VerifyMismatch> found;
  VerifyCallbacks cb;
  cb.mismatch = [&](const VerifyMismatch& x) { found.push_back(x); };
  auto dirty = verify_tables(r, d.path, VerifyOptions(2), cb);
  ASSERT_TRUE(dirty.ok()) << dirty.message();
  std::uint64_t bad = 0;
  for (const VerifyReport& v : dirty->tables) bad += v.mismatches;
  EXPECT_GE(bad, 1u);
  EXPECT_LT(bad, derived);  // the garbage in derived entries is not read (nor are successors' values taken from it)
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].material, m);
  EXPECT_EQ(found[0].metric, "dtw");
  EXPECT_EQ(found[0].fen.substr(0, 2), changed < MaterialIndex(m).size() ? "W:" : "B:");
}

TEST(Verify, MissingDirectoryIsAClearError) {
  auto res = verify_tables(rules_of(Variant::Russian), "/nonexistent/damka", VerifyOptions(1), {});
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.message().find("/nonexistent/damka"), std::string::npos);
}

}  // namespace
}  // namespace damka
