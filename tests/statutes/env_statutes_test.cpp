// The statutes library's files go through the Env it is given (env.hpp):
// the tables a TableDirValues stats, its temporary count files, the SVG
// pictures and the rulebooks.  Each test injects a fault with the test
// FaultEnv that the default Env would not have met.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "damka/generate.hpp"
#include "fault_env.hpp"
#include "fixture.hpp"
#include "temp_dir.hpp"

namespace {

using namespace damka;
namespace fs = std::filesystem;
using damka::testing::FaultEnv;
using damka::testing::FaultPlan;
using damka::testing::TempDir;
using statutes_test::russian;

// Builds russian tables up to `pieces` into `dir`.
void build(const fs::path& dir, int pieces) {
  GenerateOptions g;
  g.max_pieces = pieces;
  g.out = dir;
  g.threads = 2;
  auto built = generate(russian(), g);
  ASSERT_TRUE(built.ok()) << built.message();
}

TEST(StatutesEnv, HasTableStatsThroughTheEnv) {
  TempDir tables("statutes_env_has");
  build(tables.path, 3);
  FaultEnv env(FaultPlan{});
  TableDirOptions o;
  o.env = &env;
  TableDirValues values(russian(), tables.path, o);
  EXPECT_TRUE(values.has_table(Material{0, 2, 0, 1}));
  FaultPlan eio;
  eio.stat_errno = EIO;
  env.set_plan(eio);
  EXPECT_FALSE(values.has_table(Material{0, 2, 0, 1}));  // cannot be stat'ed: no file known
  env.set_plan(FaultPlan{});
  EXPECT_TRUE(values.has_table(Material{0, 2, 0, 1}));
}

// The statute-aware counts written to temporary files: a failed write is
// the report's error, and the temporary folder is removed all the same.
TEST(StatutesEnv, CountFilesAreWrittenThroughTheEnv) {
  TempDir tables("statutes_env_counts"), work("statutes_env_work");
  build(tables.path, 4);
  const Rulebook book = statutes_test::book("russian-federation");
  ReportOptions opt;
  opt.max_pieces = 4;
  FaultPlan full;
  full.fail_write = 1;  // ENOSPC from the first write on
  FaultEnv env(full);
  TableDirOptions o;
  o.work_dir = work.path;
  o.env = &env;
  {
    TableDirValues values(russian(), tables.path, o);
    auto r = analyse(book, russian(), values, opt);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("No space left on device"), std::string::npos) << r.message();
    EXPECT_GT(env.writes(), 0);
  }
  EXPECT_TRUE(fs::is_empty(work.path)) << "the temporary folder is removed with the source";
}

TEST(StatutesEnv, SvgWritesGoThroughTheEnvAndLeaveNoPartialFile) {
  const auto& t = statutes_test::three_kings();
  SolverValues values(t.solver.rules(), t.solver);
  ReportOptions opt;
  opt.max_pieces = 4;
  auto r = analyse(statutes_test::book("russian-federation"), russian(), values, opt);
  ASSERT_TRUE(r.ok()) << r.message();
  TempDir out("statutes_env_svg");
  const fs::path sub = out.path / "russian" / "russian-federation";

  FaultPlan full;
  full.fail_write = 1;
  FaultEnv no_space(full);
  auto failed = write_svgs(*r, russian(), out.path, no_space);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), ErrorCode::Io);
  EXPECT_NE(failed.message().find("No space left on device"), std::string::npos) << failed.message();
  EXPECT_NE(failed.message().find(sub.string()), std::string::npos) << failed.message();
  ASSERT_TRUE(fs::is_directory(sub));
  EXPECT_TRUE(fs::is_empty(sub)) << "no picture and no temporary file left";

  FaultPlan mkdir;
  mkdir.mkdir_errno = EACCES;
  FaultEnv no_folders(mkdir);
  auto unmade = write_svgs(*r, russian(), out.path / "elsewhere", no_folders);
  ASSERT_FALSE(unmade.ok());
  EXPECT_NE(unmade.message().find("Permission denied"), std::string::npos) << unmade.message();
  EXPECT_FALSE(fs::exists(out.path / "elsewhere"));

  FaultEnv fine(FaultPlan{});
  auto written = write_svgs(*r, russian(), out.path, fine);
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(written->size(), r->clauses.size());
  EXPECT_GT(fine.writes(), 0);
}

TEST(StatutesEnv, RulebooksAreListedAndReadThroughTheEnv) {
  TempDir books("statutes_env_books");
  fs::copy_file(statutes_test::book("russian-federation").path, books.path / "russian-federation.json");
  auto plain = load_rulebook("russian-federation", {books.path});
  ASSERT_TRUE(plain.ok()) << plain.message();

  FaultPlan eio;
  eio.read_errno = EIO;
  FaultEnv unreadable(eio);
  auto failed = load_rulebook("russian-federation", {books.path}, unreadable);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), ErrorCode::Io);
  EXPECT_NE(failed.message().find("cannot read " + (books.path / "russian-federation.json").string() +
                                  ": Input/output error"),
            std::string::npos)
      << failed.message();

  EXPECT_EQ(known_rulebooks({books.path}), std::vector<std::string>{"russian-federation"});
  FaultPlan list;
  list.list_errno = EIO;
  FaultEnv unlistable(list);
  EXPECT_TRUE(known_rulebooks({books.path}, unlistable).empty());
}

}  // namespace
