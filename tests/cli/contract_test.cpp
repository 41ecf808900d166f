// The `damka` command's contract, through the real executable: folders that
// say which variants they hold (several variants, a variant subfolder, tables
// for other rules named the same way everywhere, verify listing every bad
// file), and --json on every command (errors as JSON on stdout with a
// non-zero exit; top-level objects with the variant and folder).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Outcome {
  int code;
  std::string out;  // stdout only, or stdout and stderr
};

Outcome run(const std::string& args, bool with_stderr = true) {
  const std::string cmd = std::string(DAMKA_EXE) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// stdout of a --json run, parsed (a parse failure fails the test).
json run_json(const std::string& args, int& code) {
  const Outcome r = run(args + " --json", false);
  code = r.code;
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << args << ": stdout is not one JSON document: " << e.what() << "\n" << r.out;
    return json::object();
  }
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Contract : public ::testing::Test {
 protected:
  // One folder with Russian and English tables up to 3 pieces.
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("damka-contract-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    for (const char* v : {"russian", "english"}) {
      const Outcome g = run(std::string("generate -v ") + v + " -n 3 -t 2 -o " + dir_.string());
      ASSERT_EQ(g.code, 0) << g.out;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static fs::path dir_;
};
fs::path Contract::dir_;

TEST_F(Contract, VerifyChecksEveryVariantInTheFolderAndNamesEach) {
  Outcome r = run("verify -t 2 " + dir_.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "Russian tables in " + (dir_ / "russian").string())) << r.out;
  EXPECT_TRUE(has(r.out, "English tables in " + (dir_ / "english").string())) << r.out;
  int code = 0;
  const json j = run_json("verify -t 2 " + dir_.string(), code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(j["command"], "verify");
  EXPECT_EQ(j["folder"], dir_.string());
  ASSERT_EQ(j["variants"].size(), 2u) << j.dump(2);
  EXPECT_EQ(j["variants"][0]["variant"], "russian");
  EXPECT_EQ(j["variants"][1]["variant"], "english");
  EXPECT_EQ(j["variants"][1]["tables"].size(), 9u);
  EXPECT_TRUE(j["bad_files"].empty());
}

TEST_F(Contract, AVariantSubfolderWorksLikeItsParent) {
  const std::string sub = (dir_ / "english").string();
  int code = 0;
  json j = run_json("verify -t 2 " + sub, code);
  EXPECT_EQ(code, 0) << j.dump(2);
  EXPECT_EQ(j["variant"], "english");
  EXPECT_EQ(j["folder"], dir_.string());
  j = run_json("probe --tables " + sub + " 'W:WK18:BK14,K1'", code);
  EXPECT_EQ(code, 0) << j.dump(2);
  EXPECT_EQ(j["variant"], "english");
  j = run_json("probe -v russian --tables " + (dir_ / "russian").string() + " 'W:WKa1,Kc3:BKh8'", code);
  EXPECT_EQ(code, 0) << j.dump(2);
  EXPECT_EQ(j["folder"], dir_.string());
  EXPECT_EQ(j["tables_folder"], (dir_ / "russian").string());
}

TEST_F(Contract, ProbeFindsTheVariantFromTheFenAndTheFolder) {
  int code = 0;
  // Numeric squares are English only, and English tables are there.
  json j = run_json("probe --tables " + dir_.string() + " 'W:WK18:BK14,K1'", code);
  EXPECT_EQ(code, 0) << j.dump(2);
  EXPECT_EQ(j["variant"], "english");
  EXPECT_EQ(j["folder"], dir_.string());
  // Algebraic squares fit both: say which variants are there.
  Outcome r = run("probe --tables " + dir_.string() + " 'W:WKa1,Kc3:BKh8'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "several variants")) << r.out;
  EXPECT_TRUE(has(r.out, "russian, english")) << r.out;
  EXPECT_TRUE(has(r.out, "-v")) << r.out;
  // A folder of Russian tables only: the one variant.
  j = run_json("probe --tables " + (dir_ / "russian").string() + " 'W:WKa1,Kc3:BKh8'", code);
  EXPECT_EQ(code, 0) << j.dump(2);
  EXPECT_EQ(j["variant"], "russian");
  // statutes: the rulebook's variant among those present.
  j = run_json("statutes --rulebook russian-federation --max-pieces 3 --tables " + dir_.string(), code);
  EXPECT_EQ(code, 0) << j.dump(2);
  EXPECT_EQ(j["variant"], "russian");
  EXPECT_EQ(j["folder"], dir_.string());
}

// A rulebook for two variants whose tables are both there (Ukrainian-64:
// Russian and Brazilian), or neither: every command taking a rulebook asks
// for -v and names them; with -v it runs.
TEST_F(Contract, ARulebookForSeveralVariantsPresentAsksForOne) {
  const fs::path two = fs::temp_directory_path() / ("damka-contract-two-" + std::to_string(::getpid()));
  fs::remove_all(two);
  fs::create_directories(two);
  fs::copy(dir_ / "russian", two / "russian", fs::copy_options::recursive);
  ASSERT_EQ(run("generate -v brazilian -n 3 -t 2 -o " + two.string()).code, 0);
  const std::string game = (two / "game.pdn").string();
  {
    std::FILE* f = std::fopen(game.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs("[FEN \"W:WKc3,Ke5:BKh8\"]\n1. c3-d4 *\n", f);
    std::fclose(f);
  }
  for (const std::string& cmd :
       {"statutes --rulebook ukrainian-64 --max-pieces 3 --tables " + two.string(),
        "annotate --rulebook ukrainian-64 --tables " + two.string() + " " + game}) {
    Outcome r = run(cmd);
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "several variants")) << cmd << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "russian, brazilian")) << cmd << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "-v")) << cmd << "\n" << r.out;
    int code = 0;
    const json j = run_json(cmd + " -v brazilian", code);
    EXPECT_EQ(code, 0) << cmd << "\n" << j.dump(2);
    EXPECT_EQ(j["variant"], "brazilian") << cmd;
  }
  // No tables of either variant there: still asks.
  const fs::path none = two / "empty";
  fs::create_directories(none);
  Outcome r = run("statutes --rulebook ukrainian-64 --tables " + none.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "russian, brazilian")) << r.out;
  EXPECT_TRUE(has(r.out, "-v")) << r.out;
  fs::remove_all(two);
}

TEST_F(Contract, TablesForOtherRulesAreNamedTheSameWayAndVerifyListsEveryBadFile) {
  const fs::path copy = fs::temp_directory_path() / ("damka-contract-foreign-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy);
  fs::copy(dir_ / "russian", copy / "russian", fs::copy_options::recursive);
  // English files copied over Russian ones, and one damaged file.
  for (const char* f : {"2Kv1K.dtw", "2Kv1K.wdl"})
    fs::copy_file(dir_ / "english" / f, copy / "russian" / f, fs::copy_options::overwrite_existing);
  const fs::path damaged = copy / "russian" / "1K1Mv1K.dtc";
  fs::resize_file(damaged, fs::file_size(damaged) / 2);
  const std::string foreign = (copy / "russian" / "2Kv1K.dtw").string() + ": built for english rules, expected russian";

  Outcome r = run("verify -t 2 " + copy.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, foreign)) << r.out;
  EXPECT_TRUE(has(r.out, (copy / "russian" / "2Kv1K.wdl").string() + ": built for english rules")) << r.out;
  EXPECT_TRUE(has(r.out, damaged.string())) << r.out;
  EXPECT_TRUE(has(r.out, "1Mv1M")) << r.out;  // the other tables are still verified
  int code = 0;
  const json j = run_json("verify -t 2 " + copy.string(), code);
  EXPECT_EQ(code, 1);
  EXPECT_GE(j["bad_files"].size(), 3u) << j.dump(2);

  r = run("probe -v russian --tables " + copy.string() + " 'W:WKa1,Kc3:BKh8'");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, foreign)) << r.out;
  EXPECT_FALSE(has(r.out, "corrupt")) << r.out;
  // The statutes read 2Kv1K's WDL file first (it says which positions are drawn).
  r = run("statutes -v russian --max-pieces 3 --tables " + copy.string());
  EXPECT_TRUE(has(r.out, (copy / "russian" / "2Kv1K.wdl").string() + ": built for english rules, expected russian"))
      << r.out;
  r = run("info " + (copy / "russian" / "2Kv1K.dtw").string());
  EXPECT_TRUE(has(r.out, "english")) << r.out;
  fs::remove_all(copy);
}

TEST_F(Contract, EveryCommandAnswersJson) {
  int code = 0;
  json j = run_json("perft -v english -d 3", code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(j["command"], "perft");
  EXPECT_EQ(j["variant"], "english");
  ASSERT_EQ(j["depths"].size(), 3u);
  EXPECT_EQ(j["depths"][0]["leaves"], 7);
  j = run_json("generate -v russian -n 3 --dry-run -o " + dir_.string(), code);
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(j.is_object()) << j.dump(2);
  EXPECT_EQ(j["variant"], "russian");
  EXPECT_EQ(j["folder"], dir_.string());
  EXPECT_EQ(j["tables"].size(), 9u);
  EXPECT_EQ(j["compression"], "fast");
  {
    // A folder with no tables yet: everything is planned.
    const std::string empty = (dir_ / "not-built").string();
    const json fast = run_json("generate -v russian -n 3 --dry-run -o " + empty, code);
    const json small = run_json("generate -v russian -n 3 --dry-run --compression small -o " + empty, code);
    EXPECT_EQ(code, 0);
    EXPECT_EQ(small["compression"], "small");
    EXPECT_GT(small["total"]["disk_bytes"].get<double>(), 0);
    EXPECT_LT(small["total"]["disk_bytes"].get<double>(), fast["total"]["disk_bytes"].get<double>());
  }
  j = run_json("info " + dir_.string(), code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(j["folder"], dir_.string());
  EXPECT_EQ(j["variants"], json::array({"russian", "english"}));
  // Every slot is either a stored position counted by value or derived.
  std::uint64_t derived = 0;
  for (const json& t : j["tables"]) {
    std::uint64_t counted = t["derived"]["count"].get<std::uint64_t>();
    derived += counted;
    for (const json& v : t["values"]) counted += v["count"].get<std::uint64_t>();
    EXPECT_EQ(counted, t["slots"].get<std::uint64_t>()) << t["path"];
  }
  EXPECT_GT(derived, 0u);
  EXPECT_EQ(j["counts_cover"].get<std::string>().rfind("stored positions only", 0), 0u);
  // --stats: every variant of the folder, each with its materials.
  j = run_json("info --stats -t 2 " + dir_.string(), code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(j["variants"], json::array({"russian", "english"}));
  EXPECT_EQ(j["variant"], nullptr);
  ASSERT_EQ(j["stats"].size(), 2u);
  for (const json& v : j["stats"]) EXPECT_EQ(v["materials"].size(), 9u) << v["variant"];
  j = run_json("statutes --list", code);
  EXPECT_EQ(code, 0);
  EXPECT_FALSE(j["rulebooks"].empty());
}

TEST_F(Contract, ErrorsUnderJsonAreJsonOnStdoutWithANonZeroExit) {
  const std::string d = dir_.string();
  const char* bad[] = {
      "perft -v klingon -d 2",
      "perft -d 2 --fen 'W:Wz9:Bb8'",
      "generate -v russian -n 3 -m 3Kv1K -o /tmp/damka-never-built",
      "generate -v russian -n 3 -m nonsense -o /tmp/damka-never-built",
      "verify /nonexistent/tables",
      "info /nonexistent/tables",
      "info --stats /nonexistent/tables",
      "statutes --rulebook no-such-book",
      "probe --tables /nonexistent/tables 'W:WKa1:BKh8'",
      "perft --no-such-option",
      "annotate /nonexistent/games.pdn",
  };
  for (const char* args : bad) {
    int code = 0;
    const json j = run_json(args, code);
    EXPECT_NE(code, 0) << args;
    EXPECT_TRUE(j.contains("error")) << args << ": " << j.dump(2);
    EXPECT_EQ(j.value("exit_code", -1), code) << args;
    EXPECT_TRUE(j.contains("command")) << args;
  }
  int code = 0;
  json j = run_json("probe --tables " + d + " 'W:WKa1,Kc3:BKh8'", code);
  EXPECT_EQ(code, 2);
  EXPECT_EQ(j["folder"], d);
  // Values not known (4 pieces, tables up to 3): the answer, and an error.
  j = run_json("probe -v russian --tables " + d + " 'W:WKa1,Kc3,Ke5:BKh8'", code);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(j.value("exit_code", -1), 1);
  EXPECT_TRUE(has(j.value("error", ""), "not known")) << j.dump(2);
  EXPECT_EQ(j["missing_tables"], json::array({"3Kv1K"}));
}

TEST_F(Contract, MaterialOutsidePiecesIsAnError) {
  const Outcome r = run("generate -v russian -n 3 -m 3Kv1K -o " + dir_.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "3Kv1K has 4 pieces, more than --pieces 3")) << r.out;
}

TEST_F(Contract, FilipinoSaysItSharesTheBrazilianFolder) {
  Outcome r = run("generate -v filipino -n 2 --dry-run -o " + dir_.string());
  EXPECT_EQ(r.code, 0) << r.out;
  int code = 0;
  const json j = run_json("generate -v filipino -n 2 --dry-run -o " + dir_.string(), code);
  EXPECT_EQ(j["tables_folder"], (dir_ / "brazilian").string());
  EXPECT_TRUE(has(j.value("note", ""), "Brazilian")) << j.dump(2);
  r = run("generate -v filipino -n 2 -t 1 -o " + dir_.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "Filipino plays the same game as Brazilian: its tables are Brazilian's, in " +
                             (dir_ / "brazilian").string()))
      << r.out;
  r = run("probe -v filipino --tables " + dir_.string() + " 'W:WKb1:BKg8'");  // mirrored board
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "Brazilian's, in")) << r.out;
  fs::remove_all(dir_ / "brazilian");
}

}  // namespace
