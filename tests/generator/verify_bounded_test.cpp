// verify in bounded memory: the same verdicts as the whole-table reference
// (whole_table_verify.hpp) on clean sets and on changed values, whatever the
// threads and the memory; missing, foreign, mislabelled and stray files
// reported once as what they are, and the tables that read them as not
// verifiable (never as mismatches).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "damka/generate.hpp"
#include "damka/material_stats.hpp"
#include "damka/results_journal.hpp"
#include "damka/stats_tally.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "damka/verify.hpp"
#include "generator/generate_helpers.hpp"
#include "generator/whole_table_verify.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

fs::path temp(const std::string& name) {
  const fs::path p = fs::temp_directory_path() /
                     ("damka-vb-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  return p;
}

// Generated once per variant and size (removed at exit); each test works on a copy.
const fs::path& generated(Variant v, int pieces) {
  static struct Made {
    std::map<std::pair<Variant, int>, fs::path> dirs;
    ~Made() {
      for (const auto& [key, dir] : dirs) fs::remove_all(dir);
    }
  } made;
  auto it = made.dirs.find({v, pieces});
  if (it != made.dirs.end()) return it->second;
  const fs::path dir = temp(std::string(rules_of(v).name) + "-" + std::to_string(pieces));
  auto res = generate(rules_of(v), test::options(dir, pieces, 2));
  EXPECT_TRUE(res.ok()) << res.message();
  return made.dirs.emplace(std::make_pair(v, pieces), dir).first->second;
}

struct Copy {
  fs::path path;
  Copy(Variant v, int pieces, const std::string& name) : path(temp(name)) {
    fs::copy(generated(v, pieces), path, fs::copy_options::recursive);
  }
  ~Copy() { fs::remove_all(path); }
};

std::vector<std::uint16_t> read_all(const fs::path& file, TableHeader& h) {
  auto reader = TableReader::open(file);
  EXPECT_TRUE(reader.ok()) << reader.message();
  h = (*reader)->header();
  std::vector<std::uint16_t> codes, block;
  for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
    EXPECT_TRUE((*reader)->read_block(b, block).ok());
    codes.insert(codes.end(), block.begin(), block.end());
  }
  return codes;
}

VerifyResult run(const Rules& r, const fs::path& dir, int threads = 2, std::uint64_t memory = ~std::uint64_t{0}) {
  VerifyOptions o;
  o.threads = threads;
  o.memory_budget = memory;
  auto res = verify_tables(r, dir, o);
  EXPECT_TRUE(res.ok()) << res.message();
  return res.ok() ? *res : VerifyResult{};
}

// Per material: mismatches, or -1 when not verified.
std::map<Material, long long> verdicts(const std::vector<VerifyReport>& reports) {
  std::map<Material, long long> out;
  for (const VerifyReport& v : reports) out[v.material] = v.error.empty() ? static_cast<long long>(v.mismatches) : -1;
  return out;
}

void expect_same_as_reference(const Rules& r, const fs::path& dir) {
  const VerifyResult bounded = run(r, dir);
  std::vector<Material> order;
  for (const VerifyReport& v : bounded.tables) order.push_back(v.material);
  EXPECT_EQ(verdicts(bounded.tables), verdicts(testing::whole_table_verify(r, dir, order)));
  // Threads and memory change nothing.
  EXPECT_EQ(verdicts(run(r, dir, 1).tables), verdicts(bounded.tables));
  EXPECT_EQ(verdicts(run(r, dir, 2, std::uint64_t{24} << 20).tables), verdicts(bounded.tables));
}

TEST(VerifyBounded, CleanSetsMatchTheWholeTableVerify) {
  for (auto [v, pieces] : {std::pair{Variant::Russian, 4}, std::pair{Variant::English, 3}}) {
    const Rules& r = rules_of(v);
    const VerifyResult res = run(r, generated(v, pieces));
    EXPECT_TRUE(res.files.empty());
    EXPECT_EQ(res.tables.size(), build_order(pieces).size());
    for (const VerifyReport& t : res.tables) {
      EXPECT_TRUE(t.error.empty()) << t.material.name() << ": " << t.error;
      EXPECT_EQ(t.mismatches, 0u) << r.name << " " << t.material.name();
    }
    expect_same_as_reference(r, generated(v, pieces));
  }
}

// One stored (not derived, not drawn) entry of `metric` changed.
void change_one_value(const Rules& r, const fs::path& dir, const Material& m, Metric metric) {
  const fs::path file = table_path(dir, r, m, metric);
  TableHeader h;
  std::vector<std::uint16_t> codes = read_all(file, h);
  TableHeader wh;
  const std::vector<std::uint16_t> wdl = read_all(table_path(dir, r, m, Metric::WDL), wh);
  const MaterialIndex index(m);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const Value v = Value::decode(codes[i]);  // a distance file's drawn entries are don't care
    if (is_derived(r, position_at(index, i)) || Value::decode(wdl[i]).wdl != Wdl::Win) continue;
    codes[i] = metric == Metric::WDL ? Value::draw().encode() : Value::win(v.plies + 2).encode();
    break;
  }
  ASSERT_TRUE(write_table(file, h, codes).ok());
}

TEST(VerifyBounded, ChangedValuesGiveTheWholeTableVerdicts) {
  const Rules& r = rules_of(Variant::Russian);
  for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) {
    Copy c(Variant::Russian, 3, "changed-" + std::string(metric_name(metric)));
    change_one_value(r, c.path, *Material::parse("1K1Mv1K"), metric);
    change_one_value(r, c.path, *Material::parse("2Kv1K"), metric);
    const VerifyResult res = run(r, c.path);
    std::uint64_t bad = 0;
    for (const VerifyReport& t : res.tables) bad += t.mismatches;
    EXPECT_GE(bad, 2u) << metric_name(metric);
    expect_same_as_reference(r, c.path);
  }
}

// The reports of every table: which are fine (0 mismatches), which have a
// problem of their own, which are not verifiable.
void expect_blocked_by(const VerifyResult& res, const Material& culprit, const std::string& words) {
  for (const VerifyReport& t : res.tables) {
    EXPECT_EQ(t.mismatches, 0u) << t.material.name();
    const auto closure = successors_closure(t.material);
    const bool reads = std::find(closure.begin(), closure.end(), culprit) != closure.end();
    if (t.material == culprit) {
      EXPECT_FALSE(t.error.empty());
      EXPECT_FALSE(t.error_in_dependency) << t.error;
      EXPECT_NE(t.error.find(words), std::string::npos) << t.error;
    } else if (reads) {
      EXPECT_TRUE(t.error_in_dependency) << t.material.name() << ": " << t.error;
      EXPECT_NE(t.error.find("not verifiable"), std::string::npos) << t.error;
      EXPECT_NE(t.error.find(culprit.name()), std::string::npos) << t.error;
    } else {
      EXPECT_TRUE(t.error.empty()) << t.material.name() << ": " << t.error;
    }
  }
}

TEST(VerifyBounded, AMissingFileIsReportedOnceAndItsReadersAreNotVerifiable) {
  const Rules& r = rules_of(Variant::Russian);
  Copy c(Variant::Russian, 4, "missing");
  const Material m = *Material::parse("2Kv1K");
  fs::remove(table_path(c.path, r, m, Metric::DTW));
  const VerifyResult res = run(r, c.path);
  ASSERT_EQ(res.files.size(), 1u);
  EXPECT_EQ(res.files[0].kind, VerifyFileProblem::Kind::Missing);
  EXPECT_EQ(res.files[0].path, table_path(c.path, r, m, Metric::DTW));
  expect_blocked_by(res, m, "missing");

  // A whole material missing: its WDL file is the one named.
  Copy d(Variant::Russian, 4, "missing-all");
  for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) fs::remove(table_path(d.path, r, m, metric));
  const VerifyResult all = run(r, d.path);
  ASSERT_FALSE(all.files.empty());
  for (const VerifyFileProblem& f : all.files) {
    EXPECT_EQ(f.kind, VerifyFileProblem::Kind::Missing);
    EXPECT_NE(f.message.find("2Kv1K"), std::string::npos) << f.message;
  }
  for (const VerifyReport& t : all.tables) {
    EXPECT_NE(t.material, m);
    EXPECT_EQ(t.mismatches, 0u);
  }
}

TEST(VerifyBounded, AForeignFileOrOneOfAnotherMetricIsBadNotAMismatch) {
  const Rules& r = rules_of(Variant::Russian);
  const Material m = *Material::parse("2Kv1K");
  {
    Copy c(Variant::Russian, 4, "foreign");
    const fs::path brazilian = generated(Variant::Brazilian, 3);
    fs::copy_file(table_path(brazilian, rules_of(Variant::Brazilian), m, Metric::DTW),
                  table_path(c.path, r, m, Metric::DTW), fs::copy_options::overwrite_existing);
    const VerifyResult res = run(r, c.path);
    ASSERT_EQ(res.files.size(), 1u);
    EXPECT_EQ(res.files[0].kind, VerifyFileProblem::Kind::Bad);
    EXPECT_NE(res.files[0].message.find("brazilian"), std::string::npos) << res.files[0].message;
    expect_blocked_by(res, m, "brazilian");
  }
  for (auto [from, to] : {std::pair{Metric::DTC, Metric::DTW}, std::pair{Metric::DTW, Metric::WDL}}) {
    Copy c(Variant::Russian, 4, "metric-" + std::string(metric_name(to)));
    fs::copy_file(table_path(c.path, r, m, from), table_path(c.path, r, m, to), fs::copy_options::overwrite_existing);
    const VerifyResult res = run(r, c.path);
    ASSERT_EQ(res.files.size(), 1u);
    EXPECT_EQ(res.files[0].kind, VerifyFileProblem::Kind::Bad);
    EXPECT_NE(res.files[0].message.find("holds the 2Kv1K " + std::string(metric_name(from))), std::string::npos)
        << res.files[0].message;
    expect_blocked_by(res, m, "holds the");
  }
}

TEST(VerifyBounded, StrayNamesAreListedAndNeverOpened) {
  const Rules& r = rules_of(Variant::Russian);
  Copy c(Variant::Russian, 3, "stray");
  const fs::path dir = table_dir(c.path, r);
  for (const char* name : {"9Kv8K.wdl", "notatable.dtw", "1Kv2K.wdl", "2Kv0.dtc", "20Kv1K.wdl"})
    std::ofstream(dir / name) << "";  // empty: opening one would fail
  const VerifyResult res = run(r, c.path);
  EXPECT_EQ(res.files.size(), 5u);
  for (const VerifyFileProblem& f : res.files) {
    EXPECT_EQ(f.kind, VerifyFileProblem::Kind::Stray) << f.message;
    EXPECT_NE(f.message.find("stray"), std::string::npos);
  }
  EXPECT_EQ(res.tables.size(), build_order(3).size());
  for (const VerifyReport& t : res.tables) {
    EXPECT_TRUE(t.error.empty()) << t.error;
    EXPECT_EQ(t.mismatches, 0u);
  }
}

TEST(VerifyBounded, TooLittleMemoryIsSaidAndNothingElseIsBlamed) {
  const Rules& r = rules_of(Variant::Russian);
  const VerifyResult res = run(r, generated(Variant::Russian, 3), 2, std::uint64_t{1} << 20);
  ASSERT_FALSE(res.tables.empty());
  for (const VerifyReport& t : res.tables) {
    EXPECT_NE(t.error.find("memory"), std::string::npos) << t.material.name() << ": " << t.error;
    EXPECT_FALSE(t.error_in_dependency) << t.error;
  }
  EXPECT_TRUE(res.files.empty());
}

TEST(VerifyBounded, ProgressCoversTheWholeRun) {
  const Rules& r = rules_of(Variant::Russian);
  VerifyCallbacks cb;
  std::uint64_t last = 0, total = 0;
  bool increasing = true;
  cb.progress = [&](const VerifyProgress& p) {
    increasing = increasing && p.overall_done >= last;
    last = p.overall_done;
    total = p.overall_total;
  };
  VerifyOptions o;
  o.threads = 2;
  auto res = verify_tables(r, generated(Variant::Russian, 3), o, cb);
  ASSERT_TRUE(res.ok());
  std::uint64_t all = 0;
  for (const Material& m : build_order(3)) all += table_slots(m);
  EXPECT_EQ(total, all);
  EXPECT_TRUE(increasing);
  EXPECT_GT(last, 0u);
}


// The journal: a second run skips what the first found good, a changed
// file is checked again (and a table with mismatches never recorded).
VerifyResult run_journal(const Rules& r, const fs::path& dir, const fs::path& journal, const VerifyCallbacks& cb = {},
                         std::uint64_t memory = ~std::uint64_t{0}) {
  VerifyOptions o(2);
  o.memory_budget = memory;
  o.journal = journal;
  auto res = verify_tables(r, dir, o, cb);
  EXPECT_TRUE(res.ok()) << res.message();
  return res.ok() ? *res : VerifyResult{};
}

std::size_t journaled(const VerifyResult& res) {
  std::size_t n = 0;
  for (const VerifyReport& t : res.tables) n += t.journaled;
  return n;
}

TEST(VerifyBounded, AJournalSkipsTablesFoundGoodWhoseFilesAreUnchanged) {
  const Rules& r = rules_of(Variant::Russian);
  Copy c(Variant::Russian, 3, "journal");
  const fs::path journal = c.path / "verify.journal";
  const VerifyResult first = run_journal(r, c.path, journal);
  ASSERT_EQ(first.tables.size(), build_order(3).size());
  EXPECT_EQ(journaled(first), 0u);
  EXPECT_TRUE(first.journal_error.empty()) << first.journal_error;
  ASSERT_TRUE(fs::exists(journal));

  const VerifyResult second = run_journal(r, c.path, journal);
  EXPECT_EQ(journaled(second), second.tables.size());
  EXPECT_EQ(verdicts(second.tables), verdicts(first.tables));
  for (const VerifyReport& t : second.tables) EXPECT_EQ(t.positions, table_slots(t.material));

  // A value changed (the file rewritten): that table and those that read it
  // are checked again, its mismatch found, and it stays out of the journal.
  const Material changed = *Material::parse("2Kv1K");
  change_one_value(r, c.path, changed, Metric::DTW);
  for (int round = 0; round < 2; ++round) {
    std::uint64_t total = 0;
    VerifyCallbacks cb;
    cb.progress = [&](const VerifyProgress& p) { total = p.overall_total; };
    const VerifyResult third = run_journal(r, c.path, journal, cb);
    std::uint64_t checked = 0;
    for (const VerifyReport& t : third.tables) {
      const std::vector<Material> reads = successors_closure(t.material);
      // The readers are recorded again by the first round; the changed table never.
      const bool again = t.material == changed ||
                         (round == 0 && std::find(reads.begin(), reads.end(), changed) != reads.end());
      EXPECT_EQ(t.journaled, !again) << t.material.name();
      if (again) checked += t.positions;
      if (t.material == changed) {
        EXPECT_GE(t.mismatches, 1u);
      }
    }
    EXPECT_EQ(total, checked);  // the run's progress counts what it checks
    if (round == 0) {
      EXPECT_GT(checked, table_slots(changed));  // 1K1Mv1K reads 2Kv1K
    }
  }
}

TEST(VerifyBounded, TablesTheJournalSkipsAreLoadedForTheTablesStillToCheck) {
  const Rules& r = rules_of(Variant::Russian);
  Copy c(Variant::Russian, 4, "journal-load");
  const fs::path journal = c.path / "verify.journal";
  run_journal(r, c.path, journal);
  // Forget the 4-piece tables, as a run stopped after the 3-piece ones would.
  auto text = nlohmann::json::parse(std::ifstream(journal));
  auto& tables = text["variants"]["russian"];
  std::set<Material> forgotten;
  for (const Material& m : build_order(4))
    if (m.white() + m.black() == 4) {
      tables.erase(m.name());
      forgotten.insert(m);
    }
  std::ofstream(journal) << text.dump();

  for (std::uint64_t memory : {~std::uint64_t{0}, std::uint64_t{24} << 20}) {
    std::set<Material> loaded;
    bool loads_finish = true;
    VerifyCallbacks cb;
    cb.progress = [&](const VerifyProgress& p) {
      if (p.load_total == 0) return;
      loaded.insert(p.loading);
      loads_finish = loads_finish && p.load_done <= p.load_total;
    };
    const VerifyResult res = run_journal(r, c.path, journal, cb, memory);
    for (const VerifyReport& t : res.tables) {
      EXPECT_EQ(t.journaled, !forgotten.count(t.material)) << t.material.name();
      EXPECT_TRUE(t.error.empty()) << t.material.name() << ": " << t.error;
      EXPECT_EQ(t.mismatches, 0u) << t.material.name();
    }
    if (memory == ~std::uint64_t{0}) {
      EXPECT_GE(loaded.size(), 3u);
    }
    for (const Material& m : loaded) EXPECT_FALSE(forgotten.count(m)) << m.name() << " was checked, not loaded";
    EXPECT_TRUE(loads_finish);
    // Checked again (the run recorded them): put them back out.
    auto again = nlohmann::json::parse(std::ifstream(journal));
    for (const Material& m : forgotten) again["variants"]["russian"].erase(m.name());
    std::ofstream(journal) << again.dump();
  }
  // With a value changed in a loaded (skipped) table's successor the verdicts
  // are still those of the whole-table verify: a changed file is not skipped.
  change_one_value(r, c.path, *Material::parse("2K1Mv1K"), Metric::DTW);
  const VerifyResult res = run_journal(r, c.path, journal);
  std::vector<Material> order;
  for (const VerifyReport& t : res.tables) order.push_back(t.material);
  EXPECT_EQ(verdicts(res.tables), verdicts(testing::whole_table_verify(r, c.path, order)));
}

TEST(VerifyBounded, AFileThatIsNoJournalIsRefusedAndLeftAsItIs) {
  const Rules& r = rules_of(Variant::Russian);
  Copy c(Variant::Russian, 3, "journal-foreign");
  const fs::path table = table_path(c.path, r, *Material::parse("2Kv1K"), Metric::WDL);
  const fs::path note = c.path / "note.json";
  std::ofstream(note) << R"({"materials": {}})";
  for (const fs::path& p : {table, note}) {
    const auto before = fs::file_size(p);
    const auto time = fs::last_write_time(p);
    EXPECT_EQ(ResultsJournal::open(p, "verify", default_env()).code(), ErrorCode::InvalidArgument) << p;
    VerifyOptions o(2);
    o.journal = p;
    auto res = verify_tables(r, c.path, o);
    ASSERT_FALSE(res.ok()) << p;
    EXPECT_EQ(res.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(res.message().find(p.string()), std::string::npos) << res.message();
    EXPECT_NE(res.message().find("not a damka verify journal"), std::string::npos) << res.message();
    EXPECT_EQ(fs::file_size(p), before);
    EXPECT_EQ(fs::last_write_time(p), time);
  }
  // A journal that cannot be written: said once, the checks go on.
  const VerifyResult res = run_journal(r, c.path, c.path / "no-such-folder" / "verify.journal");
  EXPECT_NE(res.journal_error.find("cannot write the journal"), std::string::npos) << res.journal_error;
  EXPECT_EQ(res.tables.size(), build_order(3).size());
  for (const VerifyReport& t : res.tables) EXPECT_EQ(t.mismatches, 0u);
}


// verify --stats-journal: each table found good gets the record info --stats
// would make of it (the same text, so info --stats takes it as its own), in
// all six variants; a table with a mismatch gets none, and its readers
// theirs all the same.
TEST(VerifyBounded, StatsRecordsAreWhatInfoStatsCounts) {
  for (Variant v : all_variants()) {
    const Rules& r = rules_of(v);
    Copy c(v, 4, "stats-" + std::string(r.name));
    const fs::path journal = c.path / "stats.journal";
    VerifyOptions o(2);
    o.stats_journal = journal;
    auto res = verify_tables(r, c.path, o);
    ASSERT_TRUE(res.ok()) << res.message();
    EXPECT_TRUE(res->stats_journal_error.empty()) << res->stats_journal_error;
    EXPECT_EQ(res->stats_recorded, build_order(4).size()) << r.name;
    auto tb = Tablebase::open(r, c.path);
    ASSERT_TRUE(tb.ok()) << tb.message();
    auto j = ResultsJournal::open(journal, "stats", default_env());
    ASSERT_TRUE(j.ok()) << j.message();
    std::uint64_t captures = 0, wins = 0;
    for (const Material& m : build_order(4)) {
      const std::vector<Metric> files = {Metric::WDL, Metric::DTW, Metric::DTC};
      const auto recorded = j->find(r, c.path, m, files);
      ASSERT_TRUE(recorded) << r.name << " " << m.name();
      auto counted = material_stats(**tb, m, {.threads = 2, .lines = false, .progress = {}});
      ASSERT_TRUE(counted.ok()) << counted.message();
      EXPECT_EQ(*recorded, stats_record(*counted)) << r.name << " " << m.name();
      captures += counted->captures;
      wins += counted->total.wins;
    }
    EXPECT_GT(captures, 0u) << r.name;
    EXPECT_GT(wins, 0u) << r.name;
    if (v != Variant::Russian) continue;
    // A changed value: a fresh journal holds exactly the tables found good
    // (not the changed one, nor a reader whose check it spoils).
    const Material changed = *Material::parse("2Kv1K");
    change_one_value(r, c.path, changed, Metric::DTW);
    fs::remove(journal);
    res = verify_tables(r, c.path, o);
    ASSERT_TRUE(res.ok()) << res.message();
    auto again = ResultsJournal::open(journal, "stats", default_env());
    ASSERT_TRUE(again.ok()) << again.message();
    std::size_t good = 0;
    for (const VerifyReport& t : res->tables) {
      const bool ok = t.error.empty() && t.mismatches == 0;
      good += ok;
      EXPECT_EQ(again->find(r, c.path, t.material, {Metric::WDL, Metric::DTW, Metric::DTC}).has_value(), ok)
          << t.material.name();
      if (t.material == changed) {
        EXPECT_FALSE(ok);
      }
    }
    EXPECT_EQ(res->stats_recorded, good);
    EXPECT_GT(good, build_order(3).size());
    // A verify journal is no stats journal: refused.
    o.stats_journal = c.path / "verify.journal";
    run_journal(r, c.path, o.stats_journal);
    EXPECT_EQ(verify_tables(r, c.path, o).code(), ErrorCode::InvalidArgument);
  }
}

}  // namespace
}  // namespace damka
