// Table files whose derived entries (value_oracle.hpp: the side to move must
// capture), and whose distance files' drawn entries, hold no value give the
// statutes report and verify exactly what true values in every entry give.
// The 4-piece tables as `damka generate` writes them (don't-care entries,
// table_file.hpp kDontCareCode), and a copy rewritten with the opposite
// result in every don't-care entry (garbage), are
// compared with the solver's tables in memory, which hold the true value
// everywhere (what the files held before don't-care entries).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "damka/generate.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/statute_json.hpp"
#include "damka/statutes.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "damka/verify.hpp"
#include "fixture.hpp"
#include "temp_dir.hpp"

namespace {

using namespace damka;
namespace fs = std::filesystem;

constexpr Metric kMetrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};

// The tests' temporary folders (temp_dir.hpp).
using damka::testing::TempDir;

std::vector<std::uint16_t> read_codes(const fs::path& path) {
  std::vector<std::uint16_t> codes, block;
  auto reader = TableReader::open(path);
  EXPECT_TRUE(reader.ok()) << reader.message();
  if (!reader) return codes;
  for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
    EXPECT_TRUE((*reader)->read_block(b, block).ok());
    codes.insert(codes.end(), block.begin(), block.end());
  }
  return codes;
}

// The solver's code of slot i in a metric's table.
std::uint16_t true_code(const SolvedTable& t, Metric metric, std::size_t i) {
  if (metric == Metric::WDL) return Value::decode(t.dtw[i]).wdl_only().encode();
  return metric == Metric::DTW ? t.dtw[i] : t.dtc[i];
}

// The opposite result, far distances: what no reader may take for the value.
std::uint16_t garbage(std::uint16_t code, Metric metric) {
  const Value v = Value::decode(code);
  const Value bad = v.wdl == Wdl::Draw ? Value::win(metric == Metric::WDL ? 0 : 99)
                    : v.wdl == Wdl::Win ? Value::draw()
                                        : Value::win(metric == Metric::WDL ? 0 : 77);
  return bad.encode();
}

struct Case {
  Variant variant;
  const char* book;
};

class DerivedEntries : public ::testing::TestWithParam<Case> {};

TEST_P(DerivedEntries, StatutesAndVerifyGiveWhatTrueValuesGive) {
  const Rules& rules = rules_of(GetParam().variant);
  const int n = 4;
  const std::string tag = std::string(rules.name);
  TempDir generated("derived_" + tag + "_generated", false), junk("derived_" + tag + "_garbage", false);
  GenerateOptions g;
  g.max_pieces = n;
  g.out = generated.path;
  g.threads = 2;
  auto built = generate(rules, g);
  ASSERT_TRUE(built.ok()) << built.message();

  Solver solver(rules, 2);
  std::uint64_t derived = 0, differing = 0, drawn = 0, drawn_differing = 0;
  for (const Material& m : build_order(n)) {
    solver.solve(m);
    const SolvedTable& t = *solver.table(m);
    const MaterialIndex index(m);
    std::vector<bool> is_capture(t.dtw.size());
    for (std::size_t i = 0; i < t.dtw.size(); ++i) is_capture[i] = is_derived(rules, position_at(index, i));
    for (Metric metric : kMetrics) {
      const fs::path from = table_path(generated.path, rules, m, metric);
      const std::vector<std::uint16_t> file = read_codes(from);
      ASSERT_EQ(file.size(), t.dtw.size()) << from;
      std::vector<std::uint16_t> wrong(file.size());
      for (std::size_t i = 0; i < file.size(); ++i) {
        const std::uint16_t want = true_code(t, metric, i);
        // A drawn position's entry in a distance file is don't care too
        // (FORMAT.md 3.5: the WDL file says it is drawn).
        const bool drawn_distance = metric != Metric::WDL && want == Value::draw().encode();
        wrong[i] = is_capture[i] || drawn_distance ? garbage(want, metric) : want;
        if (is_capture[i]) {
          ++derived;
          differing += file[i] != want;
        } else if (drawn_distance) {
          ++drawn;
          drawn_differing += file[i] != want;
        } else {
          // A stored entry is the value.
          ASSERT_EQ(file[i], want) << from << " slot " << i;
        }
      }
      fs::create_directories(table_dir(junk.path, rules));
      ASSERT_TRUE(write_table(table_path(junk.path, rules, m, metric), default_table_header(rules, m, metric), wrong).ok());
    }
  }
  // The generated files do not hold the true values of derived positions.
  ASSERT_GT(derived, 10000u);
  EXPECT_GT(differing, derived / 10) << "the generated files hold (nearly) true values in derived entries";
  ASSERT_GT(drawn, 10000u);
  EXPECT_GT(drawn_differing, drawn / 10) << "the distance files hold (nearly) true values in drawn entries";

  // verify: every table clean in both folders (as with true values).
  for (const fs::path* dir : {&generated.path, &junk.path}) {
    auto v = verify_tables(rules, *dir, VerifyOptions(2), {});
    ASSERT_TRUE(v.ok()) << v.message();
    EXPECT_EQ(v->tables.size(), build_order(n).size()) << *dir;
    for (const VerifyReport& r : v->tables) {
      EXPECT_TRUE(r.error.empty()) << *dir << " " << r.material.name() << ": " << r.error;
      EXPECT_EQ(r.mismatches, 0u) << *dir << " " << r.material.name();
      EXPECT_EQ(r.positions, table_slots(r.material));
    }
  }

  // The statutes report: from either folder what it is from memory.
  const Rulebook book = statutes_test::book(GetParam().book);
  ReportOptions opt;
  opt.max_pieces = n;
  SolverValues memory(solver.rules(), solver);
  auto expected = analyse(book, rules, memory, opt);
  ASSERT_TRUE(expected.ok()) << expected.message();
  const auto want = report_json(*expected, rules)["clauses"];
  for (const fs::path* dir : {&generated.path, &junk.path}) {
    TableDirValues files(rules, *dir);
    auto got = analyse(book, rules, files, opt);
    ASSERT_TRUE(got.ok()) << *dir << ": " << got.message();
    EXPECT_EQ(got->largest_table, n) << *dir;
    EXPECT_EQ(report_json(*got, rules)["clauses"], want) << *dir;
  }
}

INSTANTIATE_TEST_SUITE_P(Books, DerivedEntries,
                         ::testing::Values(Case{Variant::Russian, "ukrainian-64"},
                                           Case{Variant::Brazilian, "ukrainian-64"}),
                         [](const auto& info) { return std::string(rules_of(info.param.variant).name); });

}  // namespace
