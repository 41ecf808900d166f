// The `damka` command as a user runs it: --help everywhere, exit codes and
// messages for bad input, and a generate -> verify -> info -> probe ->
// statutes round on small tables, including a damaged file.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code;
  std::string out;  // stdout and stderr
};

// A JSON summary without what differs from run to run whatever the tables
// hold: the process's peak memory, and the budget it was given.
nlohmann::json report_of(const std::string& out) {
  auto j = nlohmann::json::parse(out);
  EXPECT_TRUE(j.contains("peak_rss_bytes")) << out.substr(0, 200);
  j.erase("peak_rss_bytes");
  j.erase("memory_budget_bytes");
  return j;
}

Outcome damka(const std::string& args) {
  const std::string cmd = std::string(DAMKA_EXE) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class Cli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("damka-cli-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    const Outcome g = damka("generate -v russian -n 3 -t 2 -o " + dir_.string());
    ASSERT_EQ(g.code, 0) << g.out;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static fs::path dir_;
};
fs::path Cli::dir_;

TEST_F(Cli, HelpForEveryCommand) {
  const Outcome top = damka("--help");
  EXPECT_EQ(top.code, 0);
  for (const char* c : {"perft", "generate", "verify", "info", "probe", "statutes", "annotate"}) {
    EXPECT_NE(top.out.find(c), std::string::npos) << c;
    const Outcome r = damka(std::string(c) + " --help");
    EXPECT_EQ(r.code, 0) << c << ": " << r.out;
    EXPECT_NE(r.out.find("--"), std::string::npos) << c;
  }
  EXPECT_NE(damka("").code, 0);
  EXPECT_NE(damka("frobnicate").code, 0);
}

TEST_F(Cli, BadInputIsRefusedWithAReason) {
  Outcome r = damka("perft -v klingon -d 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown variant 'klingon'"), std::string::npos) << r.out;
  r = damka("perft -v russian -d 2 --fen 'W:Wz9:Bb8'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("file must be a-h"), std::string::npos) << r.out;
  r = damka("probe --tables " + dir_.string() + " 'W:Wa1,a1:Bb8'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("listed twice"), std::string::npos) << r.out;
  r = damka("probe --tables /nonexistent/tables 'W:WKa1:BKh8'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("/nonexistent/tables"), std::string::npos) << r.out;
  r = damka("generate -v russian -n 3 -m 'nonsense' -o " + dir_.string());
  EXPECT_EQ(r.code, 2);
  r = damka("generate -v russian -n 3 --compression tiny -o " + dir_.string());
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.out.find("tiny not in {fast,small}"), std::string::npos) << r.out;
  r = damka("statutes --rulebook no-such-book --tables " + dir_.string());
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.out.find("no-such-book"), std::string::npos) << r.out;
}

TEST_F(Cli, PerftPrintsPublishedCounts) {
  const Outcome r = damka("perft -v russian -d 5");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("7482"), std::string::npos) << r.out;
}

TEST_F(Cli, VerifyInfoAndDryRunOnGeneratedTables) {
  Outcome r = damka("verify " + dir_.string() + " -v russian --memory 64M");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("9 tables"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 mismatches"), std::string::npos) << r.out;
  // The summary ends with the peak memory against the budget.
  EXPECT_NE(r.out.find("% of the 64 MiB budget"), std::string::npos) << r.out;
  r = damka("verify " + dir_.string() + " -v russian --memory 64M --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto v = nlohmann::json::parse(r.out);
  EXPECT_EQ(v["memory_budget_bytes"], 64u << 20);
  EXPECT_GT(v["peak_rss_bytes"].get<std::uint64_t>(), 1u << 20);
  r = damka("info " + (dir_ / "russian").string());
  EXPECT_EQ(r.code, 0) << r.out;
  r = damka("generate -v russian -n 3 --dry-run -o " + dir_.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("present"), std::string::npos) << r.out;
}

// The dry run says how each material's levels will be solved (LevelMode):
// in JSON per mode, and in words where levels get no move graph (a tight
// --memory: several times slower).
TEST_F(Cli, DryRunSaysHowTheLevelsAreSolved) {
  Outcome r = damka("generate -v russian -n 4 -t 2 --dry-run --json -o " + dir_.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  int planned = 0;
  for (const auto& t : j["tables"]) {
    if (t["status"] != "to build") continue;
    ++planned;
    const auto& modes = t["predicted"]["levels_by_mode"];
    ASSERT_EQ(modes.size(), 5u) << t.dump();
    int levels = 0;
    for (const char* k : {"units_graph", "units", "team_graph", "team", "sweep"}) levels += modes[k].get<int>();
    EXPECT_GT(levels, 0) << t.dump();
    // One level per row the man can stand on.
    if (t["material"] == "2K1Mv1K") {
      EXPECT_EQ(levels, 7) << t.dump();
    }
  }
  EXPECT_GT(planned, 0) << r.out;
  r = damka("generate -v russian -n 4 -t 2 --dry-run -o " + dir_.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("without a move graph"), std::string::npos) << r.out;
  // The tightest budget every table fits (the largest minimum at a budget
  // below it: a larger budget only adds graphs where they fit) leaves some
  // levels without one.
  r = damka("generate -v russian -n 4 -t 2 --memory 60M --dry-run --json -o " + dir_.string());
  const auto tight = nlohmann::json::parse(r.out);
  std::uint64_t tightest = 0;
  for (const auto& t : tight["tables"])
    if (t["status"] == "to build") tightest = std::max(tightest, t["predicted"]["minimum_memory_bytes"].get<std::uint64_t>());
  ASSERT_GT(tightest, 60u << 20) << r.out;
  r = damka("generate -v russian -n 4 -t 2 --memory " + std::to_string(tightest) + " --dry-run -o " + dir_.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("levels without a move graph"), std::string::npos) << r.out;
}

// A --memory below what some material needs: the dry run marks those
// tables and exits 1 as the run would; the run refuses before it builds
// anything, naming the material that needs the most.
TEST_F(Cli, GenerateRefusesATooSmallBudgetBeforeBuilding) {
  Outcome r = damka("generate -v russian -n 4 -t 2 --memory 60M --dry-run --json -o " + dir_.string());
  EXPECT_EQ(r.code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);  // one document: the plan, with the error
  ASSERT_TRUE(j.contains("error")) << r.out;
  EXPECT_EQ(j["exit_code"], 1);
  const std::string error = j["error"];
  std::string worst, first;  // the table that needs the most; the first to build
  std::uint64_t most = 0, first_need = 0;
  int over = 0;
  for (const auto& t : j["tables"]) {
    if (t["status"] != "to build") continue;
    const std::uint64_t need = t["predicted"]["minimum_memory_bytes"];
    EXPECT_EQ(t["predicted"]["fits"].get<bool>(), need <= (60u << 20)) << t.dump();
    if (need > 60u << 20) ++over;
    if (first.empty()) {
      first = t["material"];
      first_need = need;
    }
    if (need > most) {
      most = need;
      worst = t["material"];
    }
  }
  ASSERT_GT(over, 1) << r.out;
  EXPECT_EQ(error.rfind(worst + ": needs ", 0), 0u) << error;
  EXPECT_NE(error.find("limit 60 MiB"), std::string::npos) << error;
  EXPECT_NE(error.find(std::to_string(over - 1) + " other materials"), std::string::npos) << error;
  r = damka("generate -v russian -n 4 -t 2 --memory 60M --dry-run -o " + dir_.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("over --memory"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("damka generate: " + worst + ": needs "), std::string::npos) << r.out;
  // A budget the first table to build fits and a later one does not: the
  // run builds not even the first.
  ASSERT_GT(most, first_need) << r.out;
  r = damka("generate -v russian -n 4 -t 2 --memory " + std::to_string(first_need) + " -o " + dir_.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find(": needs "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("use fewer threads"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("built"), std::string::npos) << r.out;  // not one table
  EXPECT_FALSE(fs::exists(dir_ / "russian" / (first + ".wdl"))) << first;
}

// verify --journal: the same command run again skips what was found good;
// a file that is no journal is refused (exit 2) and left as it is.
TEST_F(Cli, VerifyJournalResumesAndRefusesOtherFiles) {
  const std::string journal = (dir_ / "verify.journal").string();
  Outcome r = damka("verify " + dir_.string() + " -v russian --journal " + journal);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("in the journal"), std::string::npos) << r.out;
  r = damka("verify " + dir_.string() + " -v russian --json --journal " + journal);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["journal"], journal);
  EXPECT_EQ(j["variants"][0]["journaled_tables"], 9);
  for (const auto& t : j["variants"][0]["tables"]) EXPECT_EQ(t["journaled"], true) << t.dump();
  r = damka("verify " + dir_.string() + " -v russian --journal " + journal);
  EXPECT_NE(r.out.find("9 tables verified (9 of them by earlier runs, in the journal)"), std::string::npos) << r.out;
  fs::remove(journal);

  const std::string table = (dir_ / "russian" / "2Kv1K.wdl").string();
  const auto size = fs::file_size(table);
  r = damka("verify " + dir_.string() + " -v russian --journal " + table);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("not a damka verify journal"), std::string::npos) << r.out;
  EXPECT_EQ(fs::file_size(table), size);
}

// info --stats --journal: the second run takes every material from the
// journal and prints the same report; --journal needs --stats; a journal
// verify --stats-journal wrote serves as well.
TEST_F(Cli, InfoStatsJournalGivesTheSameReport) {
  const std::string journal = (dir_ / "stats.journal").string();
  Outcome first = damka("info --stats --json -t 2 --journal " + journal + " " + dir_.string());
  ASSERT_EQ(first.code, 0) << first.out;
  Outcome second = damka("info --stats --json -t 2 --journal " + journal + " " + dir_.string());
  ASSERT_EQ(second.code, 0) << second.out;
  Outcome plain = damka("info --stats --json -t 2 " + dir_.string());
  ASSERT_EQ(plain.code, 0) << plain.out;
  auto a = report_of(first.out), b = report_of(second.out);
  EXPECT_EQ(b["journal"], journal);
  a.erase("journal");
  b.erase("journal");
  EXPECT_EQ(a, b);
  EXPECT_EQ(b, report_of(plain.out));
  const auto recorded = nlohmann::json::parse(std::ifstream(journal));
  EXPECT_EQ(recorded["format"], "damka stats journal");
  EXPECT_EQ(recorded["variants"]["russian"].size(), 9u);
  // A verify journal is no stats journal: refused, left as it is.
  Outcome wrong = damka("verify " + dir_.string() + " -v russian --journal " + (dir_ / "v.journal").string());
  ASSERT_EQ(wrong.code, 0) << wrong.out;
  wrong = damka("info --stats --journal " + (dir_ / "v.journal").string() + " " + dir_.string());
  EXPECT_EQ(wrong.code, 2) << wrong.out;
  EXPECT_NE(wrong.out.find("not a damka stats journal"), std::string::npos) << wrong.out;
  wrong = damka("info --journal " + journal + " " + dir_.string());
  EXPECT_EQ(wrong.code, 2) << wrong.out;
  // verify --stats-journal records every table found good: info --stats
  // then counts nothing (the journal is left as it is) and says the same.
  const std::string from_verify = (dir_ / "verified-stats.journal").string();
  Outcome v = damka("verify --json -t 2 " + dir_.string() + " -v russian --stats-journal " + from_verify);
  ASSERT_EQ(v.code, 0) << v.out;
  EXPECT_EQ(nlohmann::json::parse(v.out)["variants"][0]["stats_recorded"], 9);
  const auto before = fs::last_write_time(from_verify);
  Outcome third = damka("info --stats --json -t 2 --journal " + from_verify + " " + dir_.string());
  ASSERT_EQ(third.code, 0) << third.out;
  EXPECT_EQ(fs::last_write_time(from_verify), before);
  auto c = report_of(third.out);
  c.erase("journal");
  EXPECT_EQ(c, report_of(plain.out));
  // ... and refuses a file that is no stats journal, leaving it as it is.
  const auto size = fs::file_size(dir_ / "v.journal");
  v = damka("verify " + dir_.string() + " -v russian --stats-journal " + (dir_ / "v.journal").string());
  EXPECT_EQ(v.code, 2) << v.out;
  EXPECT_NE(v.out.find("--stats-journal"), std::string::npos) << v.out;
  EXPECT_EQ(fs::file_size(dir_ / "v.journal"), size);
  fs::remove(from_verify);
  fs::remove(journal);
  fs::remove(dir_ / "v.journal");
}

// info --stats: every material's counts and longest wins (JSON shape, the
// same for any thread count, text); plain info says what its counts cover.
TEST_F(Cli, InfoStatsAndWhatPlainInfoCounts) {
  const std::string dir = dir_.string();
  Outcome r = damka("info --stats --json -t 2 " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = report_of(r.out);
  EXPECT_EQ(j["command"], "info");
  EXPECT_EQ(j["variant"], "russian");
  EXPECT_EQ(j["exit_code"], 0);
  ASSERT_TRUE(j["counts_cover"].is_string());
  ASSERT_EQ(j["stats"].size(), 1u);
  const auto& v = j["stats"][0];
  EXPECT_EQ(v["variant"], "russian");
  EXPECT_EQ(v["counts_cover"], j["counts_cover"]);
  EXPECT_EQ(v["errors"], nlohmann::json::array());
  ASSERT_EQ(v["materials"].size(), 9u);  // 3 of 2 pieces, 6 of 3
  for (const auto& m : v["materials"]) {
    const std::string name = m["material"];
    EXPECT_EQ(m["wins"].get<std::uint64_t>() + m["draws"].get<std::uint64_t>() + m["losses"].get<std::uint64_t>(),
              m["positions"].get<std::uint64_t>())
        << name;
    EXPECT_TRUE(m["capture_positions"].is_number()) << name;
    EXPECT_EQ(m["metrics"], nlohmann::json::array({"wdl", "dtw", "dtc"})) << name;
    const bool symmetric = name == "1Kv1K" || name == "1Mv1M";
    EXPECT_EQ(m.contains("black_to_move"), !symmetric) << name;
    EXPECT_EQ(m["sides_to_move"], symmetric ? "white (symmetric material)" : "white, black") << name;
    for (const char* metric : {"dtw", "dtc"}) {
      const auto& w = m["longest_win"][metric];
      ASSERT_TRUE(w.is_object()) << name << " " << metric;
      EXPECT_EQ(w["material"], name);
      EXPECT_TRUE(w["fen"].is_string());
      EXPECT_GE(w["positions"].get<int>(), 1);
      ASSERT_TRUE(w["pv"].is_array()) << w.dump();
      EXPECT_EQ(w["pv"].size(), w["plies"].get<std::size_t>()) << name << " " << metric;
    }
  }
  const auto& two_kings = v["materials"][3];
  EXPECT_EQ(two_kings["material"], "2Kv1K");
  EXPECT_EQ(two_kings["positions"], 29760);
  EXPECT_EQ(two_kings["white_to_move"]["wins"].get<std::uint64_t>() + two_kings["black_to_move"]["wins"].get<std::uint64_t>(),
            two_kings["wins"].get<std::uint64_t>());
  ASSERT_EQ(v["by_pieces"].size(), 2u);
  EXPECT_EQ(v["by_pieces"][0]["pieces"], 2);
  EXPECT_EQ(v["by_pieces"][1]["materials"], 6);
  EXPECT_TRUE(v["by_pieces"][1]["longest_win"]["dtw"]["material"].is_string());

  // One thread: the same answer.
  r = damka("info --stats --json -t 1 " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(report_of(r.out), j);
  // A small block cache: the same answer; a memory size that is not one is
  // a bad argument.
  r = damka("info --stats --json -t 2 --memory 20M " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["memory_budget_bytes"], 20u << 20);
  EXPECT_EQ(report_of(r.out), j);
  r = damka("info --stats --memory lots " + dir);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--memory"), std::string::npos) << r.out;

  r = damka("info --stats " + (dir_ / "russian").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("Counts cover every position"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Longest wins"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2Kv1K"), std::string::npos) << r.out;

  r = damka("info --stats " + (dir_ / "russian" / "2Kv1K.wdl").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--stats takes a tables folder"), std::string::npos) << r.out;

  // Plain info: its value counts cover stored positions only.
  r = damka("info " + (dir_ / "russian" / "2Kv1K.wdl").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("Value counts cover stored positions only"), std::string::npos) << r.out;
  r = damka("info --json " + (dir_ / "russian").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string cover = nlohmann::json::parse(r.out)["counts_cover"];
  EXPECT_EQ(cover.rfind("stored positions only", 0), 0u) << cover;
}

TEST_F(Cli, ProbeTextAndJson) {
  Outcome r = damka("probe --tables " + dir_.string() + " --pv 'W:WKa1,Kc3:BKh8'");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("DTW"), std::string::npos);
  r = damka("probe --json --tables " + dir_.string() + " 'B:WKa1,Kc3:BKh8'");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["material"], "2Kv1K");
  EXPECT_TRUE(j.contains("moves"));
  r = damka("probe --tables " + dir_.string() + " 'W:WKa1,Kc3,Ke5:BKh8'");  // 4 pieces: not built
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("3Kv1K"), std::string::npos) << r.out;
}

TEST_F(Cli, StatutesReportRunsAndNamesMissingTables) {
  const Outcome r = damka("statutes --rulebook russian-federation --json --tables " + dir_.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.dump().empty());
  EXPECT_NE(r.out.find("3Kv1K"), std::string::npos);  // named as missing
}

TEST_F(Cli, ProbeCountsEachClauseOnItsOwn) {
  const std::string t = " --tables " + dir_.string() + " ";
  // --moves and --game count under a rulebook: without one, an error.
  Outcome r = damka("probe" + t + "--moves 2.1.9.1.5=3 'W:WKa1,Kc3:BKh8'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--rulebook"), std::string::npos) << r.out;
  // A clause the book does not judge, a negative or malformed count.
  for (const char* bad : {"2.1.9.1.9=1", "2.1.9.1.5=-2", "12", "2.1.9.1.5=1,2.1.9.1.5=2"}) {
    r = damka("probe" + t + "--rulebook russian-federation --moves '" + std::string(bad) + "' 'W:WKa1,Kc3:BKh8'");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
  }
  r = damka("probe --json" + t + "--rulebook russian-federation --moves 2.1.9.1.5=3,2.1.9.1.8=1 'W:WKa1,Kc3:BKh8'");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["statutes"]["counters"]["2.1.9.1.5"], 3);
  EXPECT_EQ(j["statutes"]["counters"]["2.1.9.1.8"], 1);
  int seen = 0;
  for (const auto& c : j["statutes"]["clauses"]) {
    if (c["clause"] == "2.1.9.1.5") {
      EXPECT_EQ(c["moves_played"], 3);
      ++seen;
    }
    if (c["clause"] == "2.1.9.1.8") {
      EXPECT_EQ(c["moves_played"], 1);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2) << r.out;
  // A game file: the position is where it ends, the counts come from it.
  const fs::path game = fs::temp_directory_path() / ("damka-cli-game-" + std::to_string(::getpid()) + ".pdn");
  {
    std::ofstream f(game);
    f << "[FEN \"W:WKa3,Kc1:BKh8\"]\n1. c1-d2 h8-g7 2. d2-c1 g7-h8 *\n";
  }
  r = damka("probe --json" + t + "--rulebook russian-federation --game " + game.string());
  ASSERT_EQ(r.code, 0) << r.out;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["statutes"]["counters"]["2.1.9.1.5"], 2) << r.out;
  EXPECT_EQ(j["statutes"]["game_moves"], 4);
  r = damka("probe" + t + "--rulebook russian-federation --game " + game.string() + " 'W:WKa1,Ke5:BKh8'");
  EXPECT_EQ(r.code, 2) << r.out;  // the FEN is not where the game ends
  fs::remove(game);
}

// statutes --keep-dir: the second run reads what the first kept and prints
// the same report.
TEST_F(Cli, StatutesKeepDirGivesTheSameReport) {
  const fs::path keep = dir_ / "kept";
  const std::string cmd = "statutes --rulebook russian-federation --json --tables " + dir_.string();
  const Outcome plain = damka(cmd);
  ASSERT_EQ(plain.code, 0) << plain.out;
  for (int run = 0; run < 2; ++run) {
    const Outcome r = damka(cmd + " --keep-dir " + keep.string());
    ASSERT_EQ(r.code, 0) << r.out;
    auto j = report_of(r.out);
    if (j.contains("keep_dir")) {
      EXPECT_EQ(j["keep_dir"], keep.string());
      j.erase("keep_dir");
    }
    EXPECT_EQ(j, report_of(plain.out)) << "run " << run;
    EXPECT_TRUE(fs::exists(keep / "statutes.journal"));
  }
  fs::remove_all(keep);
}

TEST_F(Cli, StatutesWithNoTableItNeedsFails) {
  const fs::path empty = fs::temp_directory_path() / ("damka-cli-empty-" + std::to_string(::getpid()));
  fs::create_directories(empty / "russian");
  const Outcome r = damka("statutes --rulebook russian-federation -v russian --tables " + empty.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("nothing to judge"), std::string::npos) << r.out;
  fs::remove_all(empty);
}

TEST_F(Cli, DamagedTableFileIsReportedByName) {
  const fs::path copy = fs::temp_directory_path() / ("damka-cli-damaged-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::copy(dir_, copy, fs::copy_options::recursive);
  const fs::path victim = copy / "russian" / "2Kv1K.dtw";
  fs::resize_file(victim, fs::file_size(victim) / 2);
  Outcome r = damka("info " + victim.string());
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2Kv1K.dtw"), std::string::npos) << r.out;
  r = damka("verify " + copy.string() + " -v russian");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2Kv1K.dtw"), std::string::npos) << r.out;
  // generate rebuilds the damaged material and leaves the others.
  r = damka("generate -v russian -n 3 -t 1 -o " + copy.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2Kv1K      built"), std::string::npos) << r.out;
  EXPECT_EQ(damka("verify " + copy.string() + " -v russian").code, 0);
  fs::remove_all(copy);
}

}  // namespace
