// `damka statutes` in bounded memory: the report from table files read
// through block caches, with the statute-aware counts in temporary files,
// is byte for byte the report of the whole-table reader (the tables loaded
// whole, the counts kept in memory), JSON and text alike.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "damka/generate.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "fixture.hpp"
#include "whole_table_values.hpp"
#include "temp_dir.hpp"

namespace {

using namespace damka;
namespace fs = std::filesystem;

// The tests' temporary folders (temp_dir.hpp).
using damka::testing::TempDir;

struct Case {
  Variant variant;
  const char* book;
};

class BoundedReport : public ::testing::TestWithParam<Case> {};

TEST_P(BoundedReport, EqualsTheWholeTableReport) {
  const Rules& rules = rules_of(GetParam().variant);
  const int n = 4;
  TempDir tables(std::string(rules.name) + "_tables"), work(std::string(rules.name) + "_work");
  GenerateOptions g;
  g.max_pieces = n;
  g.out = tables.path;
  g.threads = 2;
  auto built = generate(rules, g);
  ASSERT_TRUE(built.ok()) << built.message();

  const Rulebook book = statutes_test::book(GetParam().book);
  ReportOptions opt;
  opt.max_pieces = 5;  // 5-piece materials: reported missing
  statutes_test::WholeTableValues whole(rules, tables.path);
  auto want = analyse(book, rules, whole, opt);
  ASSERT_TRUE(want.ok()) << want.message();
  ASSERT_EQ(want->largest_table, n);
  const std::string want_json = report_json(*want, rules).dump(2), want_text = report_text(*want, rules);

  // Counts in temporary files under `work` (small caches: blocks evicted), and in memory.
  std::uint64_t plain_reads = 0;
  for (const bool files : {true, false}) {
    SCOPED_TRACE(files ? "counts in files" : "counts in memory");
    TableDirOptions o;
    o.memory_budget = std::uint64_t{512} << 20;
    if (files) o.cache_bytes = std::uint64_t{1} << 20;  // 32 blocks of counts: evictions
    if (files) o.work_dir = work.path;
    {
      TableDirValues bounded(rules, tables.path, o);
      auto got = analyse(book, rules, bounded, opt);
      ASSERT_TRUE(got.ok()) << got.message();
      EXPECT_EQ(report_json(*got, rules).dump(2), want_json);
      EXPECT_EQ(report_text(*got, rules), want_text);
      // The counts' capture exits read the plain WDL held in memory, each
      // material once.
      EXPECT_GT(bounded.plain_tables_read(), 0u);
      plain_reads = bounded.plain_tables_read();
      if (files) {
        // One temporary folder holding the count files while the source lives.
        int folders = 0, count_files = 0;
        for (const auto& e : fs::directory_iterator(work.path)) {
          ++folders;
          for ([[maybe_unused]] const auto& f : fs::directory_iterator(e.path())) ++count_files;
        }
        EXPECT_EQ(folders, 1);
        EXPECT_GT(count_files, 0);
      }
    }
    EXPECT_TRUE(fs::is_empty(work.path)) << "the temporary folder is removed with the source";
  }

  // The plain WDL of the materials the counts capture into: none held
  // (every exit probed), or room for two or three 3-piece tables at a time
  // (the least recently used dropped and read again): the same report.
  for (const std::uint64_t plain : {std::uint64_t{0}, std::uint64_t{20000}}) {
    SCOPED_TRACE("plain WDL bytes " + std::to_string(plain));
    TableDirOptions o;
    o.memory_budget = std::uint64_t{512} << 20;
    o.plain_wdl_bytes = plain;
    TableDirValues bounded(rules, tables.path, o);
    auto got = analyse(book, rules, bounded, opt);
    ASSERT_TRUE(got.ok()) << got.message();
    EXPECT_EQ(report_json(*got, rules).dump(2), want_json);
    EXPECT_EQ(report_text(*got, rules), want_text);
    if (plain == 0) {
      EXPECT_EQ(bounded.plain_tables_read(), 0u);
    } else {
      EXPECT_GT(bounded.plain_tables_read(), plain_reads) << "some read again after they were dropped";
    }
  }
}

// Work kept across runs (TableDirOptions::keep_dir): the report is the
// same; a run stopped part way through (the figures and counts of the
// 4-piece materials not kept yet) goes on where it stopped; a run after a
// whole one writes nothing; a table rewritten has its counts computed again.
TEST_P(BoundedReport, KeptWorkGivesTheSameReportAndGoesOnWhereItStopped) {
  const Rules& rules = rules_of(GetParam().variant);
  TempDir tables(std::string(rules.name) + "_tables"), keep(std::string(rules.name) + "_keep", false);
  GenerateOptions g;
  g.max_pieces = 4;
  g.out = tables.path;
  g.threads = 2;
  ASSERT_TRUE(generate(rules, g).ok());
  const Rulebook book = statutes_test::book(GetParam().book);
  ReportOptions opt;
  opt.max_pieces = 4;
  statutes_test::WholeTableValues whole(rules, tables.path);
  auto want = analyse(book, rules, whole, opt);
  ASSERT_TRUE(want.ok()) << want.message();
  const std::string want_json = report_json(*want, rules).dump(2), want_text = report_text(*want, rules);
  TableDirOptions o;
  o.memory_budget = std::uint64_t{256} << 20;
  o.keep_dir = keep.path;
  auto run = [&] {
    TableDirValues values(rules, tables.path, o);
    auto got = analyse(book, rules, values, opt);
    ASSERT_TRUE(got.ok()) << got.message();
    EXPECT_EQ(report_json(*got, rules).dump(2), want_json);
    EXPECT_EQ(report_text(*got, rules), want_text);
  };
  // What the keep folder holds: each file's name and time.
  auto listing = [&] {
    std::map<std::string, fs::file_time_type> out;
    for (const auto& e : fs::directory_iterator(keep.path)) out[e.path().filename().string()] = e.last_write_time();
    return out;
  };
  run();
  const fs::path journal = keep.path / "statutes.journal";
  ASSERT_TRUE(fs::exists(journal));
  std::size_t count_files = 0;
  for (const auto& [name, time] : listing()) count_files += name.ends_with(".counts");
  EXPECT_GT(count_files, 0u);

  // Stopped after the 3-piece materials: the 4-piece ones' work is gone.
  auto j = nlohmann::json::parse(std::ifstream(journal));
  auto& materials = j["variants"][table_family(rules)];
  std::vector<std::string> four;
  for (auto it = materials.begin(); it != materials.end(); ++it)
    if (Material::parse(it.key())->pieces() == 4) four.push_back(it.key());
  ASSERT_FALSE(four.empty());
  for (const std::string& name : four) {
    for (const auto& [key, file] : materials[name]["counts"].items()) fs::remove(keep.path / file.get<std::string>());
    materials.erase(name);
  }
  std::ofstream(journal) << j.dump();
  run();
  const auto after = listing();
  run();  // everything kept: nothing written
  EXPECT_EQ(listing(), after);

  // A table rewritten (the same bytes, a new file): its counts are computed again.
  const Material m = *Material::parse(four.front());
  const fs::path wdl = table_path(tables.path, rules, m, Metric::WDL);
  fs::copy_file(wdl, wdl.string() + ".copy");
  fs::rename(wdl.string() + ".copy", wdl);
  run();
  bool rewritten = false;
  for (const auto& [name, time] : listing())
    if (name.starts_with(m.name() + ".") && name.ends_with(".counts")) rewritten |= time != after.at(name);
  EXPECT_TRUE(rewritten);
}

// The statute-aware counts are checked against the material's own WDL file
// (read in slot order): a table whose stored wins were turned into draws
// makes the report fail, naming the inconsistency, never report a statute
// win that plain play does not have.
TEST(BoundedReportCheck, AStatuteWinThePlainTableCallsADrawIsRefused) {
  const Rules& rules = rules_of(Variant::Russian);
  TempDir tables("check_tables");
  GenerateOptions g;
  g.max_pieces = 3;
  g.out = tables.path;
  g.threads = 2;
  ASSERT_TRUE(generate(rules, g).ok());
  const Material m = *Material::parse("1K1Mv1K");
  const fs::path file = table_path(tables.path, rules, m, Metric::WDL);
  std::vector<std::uint16_t> codes, block;
  TableHeader h;
  {
    auto reader = TableReader::open(file);
    ASSERT_TRUE(reader.ok()) << reader.message();
    h = (*reader)->header();
    for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
      ASSERT_TRUE((*reader)->read_block(b, block).ok());
      codes.insert(codes.end(), block.begin(), block.end());
    }
  }
  const MaterialIndex index(m);
  std::size_t changed = 0;
  for (std::size_t i = 0; i < codes.size(); ++i)
    if (!is_derived(rules, position_at(index, i)) && Value::decode(codes[i]).wdl == Wdl::Win) {
      codes[i] = Value::draw().encode();
      ++changed;
    }
  ASSERT_GT(changed, 0u);
  ASSERT_TRUE(write_table(file, h, codes).ok());

  TempDir work("check_work");
  TableDirOptions o;
  o.memory_budget = std::uint64_t{256} << 20;
  o.work_dir = work.path;
  TableDirValues values(rules, tables.path, o);
  ReportOptions opt;
  opt.max_pieces = 3;
  auto got = analyse(statutes_test::book("ukrainian-64"), rules, values, opt);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.message().find("inconsistent tables"), std::string::npos) << got.message();
  EXPECT_NE(got.message().find(m.name()), std::string::npos) << got.message();
}

// -m: one material judged alone gives, clause by clause, that material's
// figures of the whole report, and the report says which material it judged.
TEST(BoundedReportCheck, OneMaterialAloneHasTheFiguresOfTheWholeReport) {
  const Rules& rules = rules_of(Variant::Russian);
  TempDir tables("only_tables"), work("only_work");
  GenerateOptions g;
  g.max_pieces = 4;
  g.out = tables.path;
  g.threads = 2;
  ASSERT_TRUE(generate(rules, g).ok());
  const Rulebook book = statutes_test::book("russian-federation");
  TableDirOptions o;
  o.memory_budget = std::uint64_t{256} << 20;
  o.work_dir = work.path;
  ReportOptions opt;
  opt.max_pieces = 4;
  nlohmann::ordered_json whole;
  {
    TableDirValues values(rules, tables.path, o);
    auto all = analyse(book, rules, values, opt);
    ASSERT_TRUE(all.ok()) << all.message();
    whole = report_json(*all, rules);
  }
  EXPECT_FALSE(whole.contains("only_material"));
  int judged = 0;
  for (const char* name : {"3Kv1K", "2K1Mv1K", "2Kv2K", "1K1Mv1K1M"}) {
    SCOPED_TRACE(name);
    opt.only = *Material::parse(name);
    TableDirValues values(rules, tables.path, o);
    auto one = analyse(book, rules, values, opt);
    ASSERT_TRUE(one.ok()) << one.message();
    const auto j = report_json(*one, rules);
    EXPECT_EQ(j["only_material"], name);
    EXPECT_NE(report_text(*one, rules).find(std::string("material ") + name + " only"), std::string::npos);
    ASSERT_EQ(j["clauses"].size(), whole["clauses"].size());
    for (std::size_t k = 0; k < j["clauses"].size(); ++k) {
      nlohmann::ordered_json want = nlohmann::ordered_json::array();
      for (const auto& m : whole["clauses"][k]["materials"])
        if (m["material"] == name) want.push_back(m);
      EXPECT_EQ(j["clauses"][k]["materials"], want) << whole["clauses"][k]["id"];
      judged += static_cast<int>(want.size());
    }
  }
  EXPECT_GT(judged, 3);  // every material named is covered by some clause
  // A material that is not canonical, or has too many pieces, is refused.
  TableDirValues values(rules, tables.path, o);
  opt.only = *Material::parse("1Kv3K");
  EXPECT_FALSE(analyse(book, rules, values, opt).ok());
  opt.only = *Material::parse("3K2Mv1K");
  EXPECT_FALSE(analyse(book, rules, values, opt).ok());
}

INSTANTIATE_TEST_SUITE_P(Books, BoundedReport,
                         ::testing::Values(Case{Variant::Russian, "russian-federation"},
                                           Case{Variant::Russian, "ukrainian-64"},
                                           Case{Variant::Brazilian, "ukrainian-64"}),
                         [](const auto& info) {
                           std::string b = info.param.book;
                           for (char& c : b)
                             if (c == '-') c = '_';
                           return std::string(rules_of(info.param.variant).name) + "_" + b;
                         });

}  // namespace

namespace {

// One-side distance files (generate --one-side, FORMAT.md 3.5): the bounded
// report on them is the report of the same set with both sides stored.
TEST(BoundedReportOneSide, EqualsTheBothSidesReport) {
  const Rules& rules = rules_of(Variant::Russian);
  TempDir both(std::string("one_side_both")), one(std::string("one_side_one"));
  for (const bool one_side : {false, true}) {
    GenerateOptions g;
    g.max_pieces = 4;
    g.out = one_side ? one.path : both.path;
    g.threads = 2;
    g.one_side = one_side;
    auto built = generate(rules, g);
    ASSERT_TRUE(built.ok()) << built.message();
  }
  for (const char* name : {"russian-federation", "ukrainian-64"}) {
    SCOPED_TRACE(name);
    const Rulebook book = statutes_test::book(name);
    ReportOptions opt;
    opt.max_pieces = 4;
    TableDirOptions o;
    o.memory_budget = std::uint64_t{512} << 20;
    TableDirValues want_values(rules, both.path, o);
    auto want = analyse(book, rules, want_values, opt);
    ASSERT_TRUE(want.ok()) << want.message();
    TableDirValues got_values(rules, one.path, o);
    auto got = analyse(book, rules, got_values, opt);
    ASSERT_TRUE(got.ok()) << got.message();
    // The same but for the folder the report names.
    auto same_folder = [&](std::string s) {
      const std::string from = one.path.string(), to = both.path.string();
      for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
      return s;
    };
    EXPECT_EQ(same_folder(report_json(*got, rules).dump(2)), report_json(*want, rules).dump(2));
    EXPECT_EQ(same_folder(report_text(*got, rules)), report_text(*want, rules));
  }
}

}  // namespace
