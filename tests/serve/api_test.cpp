// damka serve's API against a server on an ephemeral loopback port: the
// answers equal `damka probe --json --pv` (the real executable), bad input
// answers 400 with a JSON error, clients in parallel get the same answers as
// one alone, every request is logged; and the `damka serve` command itself
// (port 0, SIGTERM, bad options).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>

#include "damka/notation.hpp"
#include "damka/position_report.hpp"
#include "damka/probe.hpp"
#include "damka/server.hpp"
#include "fault_env.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
const std::string kTables = DAMKA_SERVE_TABLES;

// stdout of a command (stderr dropped) and its exit code.
std::pair<int, std::string> run(const std::string& cmd) {
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {-1, ""};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

json cli_probe(const std::string& variant, const std::string& fen, const std::string& extra = "") {
  const auto [code, out] = run(std::string(DAMKA_EXE) + " probe --json --pv -v " + variant + " --tables " + kTables +
                               " " + extra + " '" + fen + "' 2>/dev/null");
  EXPECT_TRUE(code == 0 || code == 1) << fen << ": " << out;
  // The command line's envelope (which command, its folders, its exit) is
  // not part of the answer about the position.
  json j = json::parse(out);
  for (const char* key : {"command", "folder", "tables_folder", "note", "error", "exit_code"}) j.erase(key);
  return j;
}

// A server of the tables on 127.0.0.1:<any port>, run on a thread of its own.
class ServeApi : public ::testing::Test {
 protected:
  void SetUp() override {
    damka::ServeOptions o;
    o.tables = kTables;
    o.port = 0;
    o.threads = 8;
    o.web_dir = DAMKA_WEB_DIR;
    o.log = [this](const std::string& line) {
      std::lock_guard lock(log_mu_);
      log_.push_back(line);
    };
    auto s = damka::Server::create(o);
    ASSERT_TRUE(s.ok()) << s.message();
    server_ = std::move(*s);
    const damka::Status b = server_->bind();
    ASSERT_TRUE(b.ok()) << b.message();
    ASSERT_GT(server_->port(), 0);
    thread_ = std::thread([this] { server_->run(); });
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(30, 0);
    return c;
  }
  // GET path; the status and the body as JSON (which every answer is).
  std::pair<int, json> get(const std::string& path) const {
    auto c = client();
    auto r = c.Get(path);
    if (!r) return {-1, json()};
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << path;
    return {r->status, json::parse(r->body)};
  }
  static std::string q(const std::string& s) { return httplib::detail::encode_query_param(s); }

  std::unique_ptr<damka::Server> server_;
  std::thread thread_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

TEST_F(ServeApi, ProbeAnswersEqualTheCommandLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"russian", "W:WKa1,Kc3:BKh8"},       {"russian", "B:WKa1,Kc3:BKh8"},
      {"russian", "W:WKa1,c3:BKh8"},        {"russian", "W:WKa1,Kc3,Ke5:BKh8"},
      {"russian", "W:Wc3,e3:Bd6,f6"},       {"russian", "B:WKa1:Bc3,f4"},
      {"english", "B:W21,K30:B3"},          {"english", "W:WK22:B18,19"},
      {"brazilian", "W:Wc3,e3:Bd6"},        {"filipino", "W:Wf3,d3:Be6"},
      {"russian", "W:WKa1,Kc3,Ke5,Kg7:BKh8"},  // 5 pieces: no table, every value "unknown"
  };
  for (const auto& [variant, fen] : cases) {
    const auto [status, api] = get("/api/v1/" + variant + "?fen=" + q(fen));
    ASSERT_EQ(status, 200) << variant << " " << fen << ": " << api.dump();
    EXPECT_EQ(api, cli_probe(variant, fen)) << variant << " " << fen;
  }
  // The 5-piece position: unknown, never a guess, and the missing table named.
  const auto [status, j] = get("/api/v1/russian?fen=" + q("W:WKa1,Kc3,Ke5,Kg7:BKh8"));
  EXPECT_EQ(j["wdl"]["status"].get<std::string>().rfind("unknown", 0), 0u) << j.dump();
  EXPECT_FALSE(j["wdl"].contains("result"));
  EXPECT_EQ(j["missing_tables"], json::array({"4Kv1K"}));
  // Moves carry the position they lead to, in the variant's notation.
  const auto [s2, e] = get("/api/v1/english?fen=" + q("B:W21,K30:B3"));
  ASSERT_FALSE(e["moves"].empty());
  for (const auto& m : e["moves"]) EXPECT_EQ(m["fen_after"].get<std::string>().find_first_of("abcdefgh"), std::string::npos);
}

TEST_F(ServeApi, RandomPositionsEqualTheCommandLine) {
  std::mt19937 rng(15);
  const auto& rules = damka::rules_of(damka::Variant::Russian);
  int compared = 0;
  while (compared < 12) {
    damka::Position p;
    const int pieces = 2 + static_cast<int>(rng() % 3);
    for (int i = 0; i < pieces; ++i) {
      const int sq = static_cast<int>(rng() % 32);
      const int side = i == 0 ? 0 : i == 1 ? 1 : static_cast<int>(rng() % 2);
      if (p.occupied() & damka::bit(sq)) continue;
      (rng() % 2 ? p.kings : p.men)[side] |= damka::bit(sq);
    }
    p.side_to_move = rng() % 2 ? damka::Color::White : damka::Color::Black;
    if (!p.is_valid() || !p.pieces(damka::Color::White) || !p.pieces(damka::Color::Black)) continue;
    const std::string fen = damka::to_fen(rules, p);
    const auto [status, api] = get("/api/v1/russian?fen=" + q(fen));
    ASSERT_EQ(status, 200) << fen;
    EXPECT_EQ(api, cli_probe("russian", fen)) << fen;
    ++compared;
  }
}

TEST_F(ServeApi, StatutesEqualTheCommandLine) {
  for (int moves : {0, 10}) {
    const std::string fen = "W:WKa1,Kc3,Ke5:BKh8";
    const std::string arg = "&rulebook=russian-federation&moves=" + std::to_string(moves);
    // The API's one count stands for every clause: the command line names each.
    const std::string n = std::to_string(moves);
    const json cli = cli_probe("russian", fen,
                               "--rulebook russian-federation --moves 2.1.9.1.3=" + n + ",2.1.9.1.4=" + n +
                                   ",2.1.9.1.5=" + n + ",2.1.9.1.7=" + n + ",2.1.9.1.8=" + n);
    auto [s1, verdict] = get("/api/v1/russian/statutes?fen=" + q(fen) + arg);
    ASSERT_EQ(s1, 200) << verdict.dump();
    for (const char* k : {"summary", "clauses", "wins_in_time", "deciding_clause", "winner", "covered"})
      EXPECT_EQ(verdict["statutes"][k], cli["statutes"][k]) << k;
    EXPECT_EQ(verdict["statutes"]["moves_played"], moves);
    EXPECT_EQ(verdict["material"], "3Kv1K");
    EXPECT_FALSE(verdict["statutes"]["clauses"].empty());
    auto [s2, probe] = get("/api/v1/russian?fen=" + q(fen) + arg);
    json a = probe, b = cli;
    a.erase("statutes");
    b.erase("statutes");
    EXPECT_EQ(a, b);
    EXPECT_EQ(probe["statutes"]["summary"], cli["statutes"]["summary"]);
  }
  // Default rulebook: the first governing the variant.
  auto [s3, d] = get("/api/v1/russian/statutes?fen=" + q("W:WKa1,Kc3,Ke5:BKh8"));
  EXPECT_EQ(s3, 200);
  EXPECT_EQ(d["statutes"]["rulebook"], "russian-federation");
  // A table the verdict needs is missing: unknown, with the reason.
  auto [s4, m] = get("/api/v1/russian/statutes?fen=" + q("W:WKa1,Kc3,Ke5,Kg7:BKh8"));
  EXPECT_EQ(s4, 200);
  EXPECT_EQ(m["statutes"]["status"], "unknown") << m.dump();
}

TEST_F(ServeApi, BadInputAnswers400WithTheProblem) {
  const std::pair<std::string, std::string> cases[] = {
      {"/api/v1/klingon?fen=W:WKa1:BKh8", "unknown_variant"},
      {"/api/v1/russian", "missing_fen"},
      {"/api/v1/russian?fen=", "bad_fen"},
      {"/api/v1/russian?fen=W:Wz9:BKh8", "bad_fen"},
      {"/api/v1/russian?fen=W:Wa1,a1:BKh8", "bad_fen"},
      {"/api/v1/russian?fen=W:Wb8:BKh2", "bad_fen"},  // a man on its promotion row
      {"/api/v1/russian?fen=W:WKa1", "invalid_position"},
      {"/api/v1/russian?fen=W:WKa1:BKh8&pv=maybe", "bad_parameter"},
      {"/api/v1/russian?fen=W:WKa1:BKh8&moves=-1", "bad_parameter"},
      {"/api/v1/russian?fen=W:WKa1:BKh8&moves=12abc", "bad_parameter"},
      {"/api/v1/russian?fen=W:WKa1:BKh8&colour=white", "bad_parameter"},
      {"/api/v1/russian?fen=W:WKa1:BKh8&rulebook=no-such-book", "bad_rulebook"},
      {"/api/v1/thai/statutes?fen=W:WKa1:BKh8", "no_rulebook"},
      {"/api/v1/russian?fen=" + std::string(2000, 'W'), "too_large"},
      {"/api/v1/russian?fen=%FF%FE%00W", "bad_fen"},
      {"/api/v1/english?fen=W:W99:B1", "bad_fen"},
  };
  for (const auto& [path, code] : cases) {
    const auto [status, j] = get(path);
    EXPECT_EQ(status, 400) << path << ": " << j.dump();
    EXPECT_EQ(j["code"], code) << path << ": " << j.dump();
    EXPECT_FALSE(j["error"].get<std::string>().empty()) << path;
  }
  auto [s1, j1] = get("/api/v1/russian?fen=W:Wz9:BKh8");
  EXPECT_NE(j1["error"].get<std::string>().find("z9"), std::string::npos) << j1.dump();
  auto [s2, j2] = get("/api/v1/klingon?fen=W:WKa1:BKh8");
  EXPECT_NE(j2["error"].get<std::string>().find("klingon"), std::string::npos) << j2.dump();
  // Longer than a request line may be: 414, the same JSON.
  auto [s3, j3] = get("/api/v1/russian?fen=" + std::string(9000, 'W'));
  EXPECT_EQ(s3, 414);
  EXPECT_EQ(j3["code"], "too_large");
  auto [s4, j4] = get("/no/such/page");
  EXPECT_EQ(s4, 404);
  EXPECT_EQ(j4["code"], "not_found");
  // Still serving.
  auto [s5, j5] = get("/healthz");
  EXPECT_EQ(s5, 200);
  EXPECT_EQ(j5["status"], "ok");
  // Garbage on the socket: answered or closed, and the server goes on.
  httplib::Client c = client();
  auto r = c.Post("/api/v1/russian", "x", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_GE(r->status, 400);
  EXPECT_EQ(get("/healthz").first, 200);
}

// GET /api/v1/{variant}/stats: the statistics `damka info --stats --json`
// prints (one function builds both), for every material or one.
TEST_F(ServeApi, StatsEqualTheCommandLine) {
  const auto [code, out] = run(std::string(DAMKA_EXE) + " info --stats --json -t 2 " + kTables + " 2>/dev/null");
  ASSERT_EQ(code, 0) << out;
  const json cli = json::parse(out);
  std::map<std::string, json> by_variant;
  for (json v : cli["stats"]) {
    v.erase("folder");  // the command line's context
    by_variant[v["variant"]] = v;
  }
  for (const char* variant : {"russian", "english"}) {
    const auto [status, api] = get(std::string("/api/v1/") + variant + "/stats");
    ASSERT_EQ(status, 200) << api.dump();
    EXPECT_EQ(api, by_variant.at(variant)) << variant;
  }
  // One material, named either way round: its entry and its piece count alone.
  const json& russian = by_variant.at("russian");
  json two_kings;
  for (const json& m : russian["materials"])
    if (m["material"] == "2Kv1K") two_kings = m;
  for (const char* name : {"2Kv1K", "1Kv2K", "2kv1k"}) {
    const auto [status, api] = get(std::string("/api/v1/russian/stats?material=") + name);
    ASSERT_EQ(status, 200) << name << ": " << api.dump();
    ASSERT_EQ(api["materials"].size(), 1u) << name;
    EXPECT_EQ(api["materials"][0], two_kings) << name;
    EXPECT_EQ(api["counts_cover"], russian["counts_cover"]);
    ASSERT_EQ(api["by_pieces"].size(), 1u);
    EXPECT_EQ(api["by_pieces"][0]["materials"], 1);
    EXPECT_EQ(api["errors"], json::array());
  }
  // Filipino reads Brazilian's tables and writes its own square names.
  const auto [fs_status, fil] = get("/api/v1/filipino/stats?material=2Kv1K");
  const auto [bs_status, bra] = get("/api/v1/brazilian/stats?material=2Kv1K");
  ASSERT_EQ(fs_status, 200);
  ASSERT_EQ(bs_status, 200);
  EXPECT_EQ(fil["variant"], "filipino");
  EXPECT_EQ(fil["materials"][0]["wins"], bra["materials"][0]["wins"]);
  const auto fil_rules = damka::parse_variant("filipino");
  const auto fen = fil["materials"][0]["longest_win"]["dtw"]["fen"].get<std::string>();
  EXPECT_TRUE(damka::parse_fen(damka::rules_of(*fil_rules), fen).ok()) << fen;

  const std::pair<std::string, std::pair<int, std::string>> bad[] = {
      {"/api/v1/klingon/stats", {400, "unknown_variant"}},
      {"/api/v1/russian/stats?material=nonsense", {400, "bad_parameter"}},
      {"/api/v1/russian/stats?material=2Kv0", {400, "bad_parameter"}},
      {"/api/v1/russian/stats?colour=white", {400, "bad_parameter"}},
      {"/api/v1/russian/stats?material=4Kv1K", {404, "no_table"}},
      {"/api/v1/english/stats?material=3Kv1K", {404, "no_table"}},
  };
  for (const auto& [path, want] : bad) {
    const auto [status, j] = get(path);
    EXPECT_EQ(status, want.first) << path << ": " << j.dump();
    EXPECT_EQ(j["code"], want.second) << path;
    EXPECT_TRUE(j["error"].is_string()) << path;
  }
}

TEST_F(ServeApi, TablesListingAndBoards) {
  const auto [status, j] = get("/api/v1/tables");
  ASSERT_EQ(status, 200);
  std::map<std::string, json> by_name;
  for (const auto& v : j["variants"]) by_name[v["name"]] = v;
  ASSERT_EQ(by_name.size(), 6u);
  const json& ru = by_name["russian"];
  EXPECT_EQ(ru["max_pieces"], 4);
  int files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(kTables) / "russian"))
    if (e.path().extension() == ".wdl") ++files;
  EXPECT_EQ(ru["materials"].size(), static_cast<std::size_t>(files));
  EXPECT_EQ(ru["pieces"]["2"], 3);  // 1Kv1K, 1Kv1M, 1Mv1M
  EXPECT_EQ(ru["rulebooks"], json::array({"russian-federation", "russian-summary", "ukrainian-64"}));
  EXPECT_EQ(by_name["thai"]["max_pieces"], 0);
  EXPECT_EQ(by_name["filipino"]["family"], "brazilian");
  EXPECT_EQ(by_name["filipino"]["max_pieces"], 3);
  // Square 0 is a1 inside; Filipino's players call it h1 and see it on the right.
  EXPECT_EQ(ru["squares"][0], json({{"name", "a1"}, {"column", 0}, {"row", 0}}));
  EXPECT_EQ(by_name["filipino"]["squares"][0], json({{"name", "h1"}, {"column", 7}, {"row", 0}}));
  EXPECT_EQ(by_name["english"]["squares"][0], json({{"name", "29"}, {"column", 0}, {"row", 0}}));
  EXPECT_EQ(by_name["english"]["squares"][31]["name"], "4");
  // The example position probes.
  for (const auto& [name, v] : by_name)
    EXPECT_EQ(get("/api/v1/" + name + "?fen=" + q(v["example_fen"])).first, 200) << name;
}

TEST_F(ServeApi, ConcurrentClientsGetTheSameAnswers) {
  // Expected answers from a Tablebase of our own.
  const auto& rules = damka::rules_of(damka::Variant::Russian);
  auto tb = damka::Tablebase::open(rules, kTables);
  ASSERT_TRUE(tb.ok());
  std::vector<std::pair<std::string, json>> work;
  std::mt19937 rng(8);
  while (work.size() < 64) {
    damka::Position p;
    for (int i = 0; i < 4; ++i) (i % 2 ? p.kings : p.men)[i % 2 == 0 ? 0 : 1] |= damka::bit(static_cast<int>(rng() % 32));
    if (p.count() != 4 || !p.is_valid()) continue;
    work.emplace_back(damka::to_fen(rules, p), damka::position_json(**tb, damka::report_position(**tb, p, true)));
  }
  std::atomic<int> ok{0}, bad{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t)
    clients.emplace_back([&, t] {
      auto c = client();
      for (int i = 0; i < 40; ++i) {
        const auto& [fen, expected] = work[(t * 40 + i) % work.size()];
        auto r = c.Get("/api/v1/russian?fen=" + q(fen));
        if (r && r->status == 200 && json::parse(r->body) == expected) ++ok;
        else ++bad;
      }
    });
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok, 320);
  EXPECT_EQ(bad, 0);
  // One log line per request, with method, target and status.  A line is
  // written after its answer is sent: stop the server (which joins its
  // threads) before counting.
  server_->stop();
  thread_.join();
  std::lock_guard lock(log_mu_);
  int lines = 0;
  for (const auto& l : log_)
    if (l.find(" GET /api/v1/russian?fen=") != std::string::npos && l.find(" 200 ") != std::string::npos) ++lines;
  EXPECT_EQ(lines, 320);
}

TEST_F(ServeApi, ThePageAndItsFiles) {
  auto c = client();
  auto r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->get_header_value("Content-Type").find("text/html"), std::string::npos);
  EXPECT_NE(r->body.find("app.js"), std::string::npos);
  for (const char* f : {"/app.js", "/style.css", "/index.html"}) {
    auto x = c.Get(f);
    ASSERT_TRUE(x) << f;
    EXPECT_EQ(x->status, 200) << f;
    EXPECT_GT(x->body.size(), 100u) << f;
  }
  EXPECT_EQ(c.Get("/../CMakeLists.txt")->status, 404);
  EXPECT_EQ(c.Get("/%2e%2e/CMakeLists.txt")->status, 404);
}

TEST(ServeWebDir, FoundInTheSourceTreeOrGiven) {
  auto found = damka::find_web_dir("/nonexistent/bin");
  ASSERT_TRUE(found.ok()) << found.message();
  EXPECT_TRUE(fs::exists(*found / "index.html"));
  // Installed: <prefix>/bin/damka finds <prefix>/share/damka/web first.
  const fs::path prefix = fs::temp_directory_path() / ("damka-serve-prefix-" + std::to_string(::getpid()));
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share" / "damka" / "web");
  { std::ofstream(prefix / "share" / "damka" / "web" / "index.html") << "<html></html>"; }
  auto installed = damka::find_web_dir(prefix / "bin");
  ASSERT_TRUE(installed.ok()) << installed.message();
  EXPECT_EQ(*installed, fs::weakly_canonical(prefix / "share" / "damka" / "web"));
  fs::remove_all(prefix);
  auto given = damka::find_web_dir("/nonexistent/bin", "/nonexistent/web");
  ASSERT_FALSE(given.ok());
  EXPECT_NE(given.message().find("/nonexistent/web"), std::string::npos);
}

// The server finds, lists and reads its web files, and stats its tables
// folder, through ServeOptions::env: faults of the test Env are errors
// naming the file or folder.
TEST(ServeWebDir, FilesAreFoundAndReadThroughTheEnv) {
  damka::testing::TempDir web("serve_env_web"), tables("serve_env_tables");
  { std::ofstream(web.path / "index.html") << "<html></html>"; }
  damka::testing::FaultPlan unstatable;
  unstatable.stat_errno = EIO;
  damka::testing::FaultEnv env(unstatable);
  EXPECT_FALSE(damka::find_web_dir("/nonexistent/bin", web.path, env).ok());
  ASSERT_TRUE(damka::find_web_dir("/nonexistent/bin", web.path).ok());

  damka::ServeOptions o;
  o.tables = tables.path;
  o.port = 0;
  o.web_dir = web.path;
  o.env = &env;
  auto s = damka::Server::create(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), damka::ErrorCode::Io) << s.message();
  EXPECT_NE(s.message().find(tables.path.string() + ": Input/output error"), std::string::npos) << s.message();

  damka::testing::FaultPlan eio;
  eio.read_errno = EIO;
  env.set_plan(eio);
  s = damka::Server::create(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot read " + (web.path / "index.html").string() + ": Input/output error"),
            std::string::npos)
      << s.message();

  damka::testing::FaultPlan unlistable;
  unlistable.list_errno = EIO;
  env.set_plan(unlistable);
  s = damka::Server::create(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Input/output error"), std::string::npos) << s.message();

  env.set_plan(damka::testing::FaultPlan{});
  s = damka::Server::create(o);
  ASSERT_TRUE(s.ok()) << s.message();
}

// The command: starts on a free port, prints it, serves, logs, stops on SIGTERM.
TEST(ServeCommand, StartsLogsAndStopsOnSigterm) {
  int out[2], err[2];
  ASSERT_EQ(pipe(out), 0);
  ASSERT_EQ(pipe(err), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    close(out[0]);
    close(err[0]);
    execl(DAMKA_EXE, DAMKA_EXE, "serve", "--port", "0", "--tables", kTables.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  std::string line;
  char ch;
  while (read(out[0], &ch, 1) == 1 && ch != '\n') line += ch;
  const auto at = line.find("http://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << line;
  const int port = std::stoi(line.substr(at + 17));
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::string log;
  char buf[4096];
  for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;) log.append(buf, static_cast<std::size_t>(n));
  close(out[0]);
  close(err[0]);
  EXPECT_NE(log.find("127.0.0.1 GET /healthz 200"), std::string::npos) << log;
  EXPECT_NE(log.find("stopped after 2 requests"), std::string::npos) << log;
}

TEST(ServeCommand, RefusesBadOptions) {
  auto [c1, o1] = run(std::string(DAMKA_EXE) + " serve --tables /nonexistent/tables 2>&1");
  EXPECT_EQ(c1, 1);
  EXPECT_NE(o1.find("/nonexistent/tables"), std::string::npos) << o1;
  auto [c2, o2] = run(std::string(DAMKA_EXE) + " serve --web /nonexistent/web --tables " + kTables + " 2>&1");
  EXPECT_EQ(c2, 2);
  EXPECT_NE(o2.find("/nonexistent/web"), std::string::npos) << o2;
  auto [c3, o3] = run(std::string(DAMKA_EXE) + " serve --port 70000 2>&1");
  EXPECT_NE(c3, 0);
  auto [c4, o4] = run(std::string(DAMKA_EXE) + " serve --help");
  EXPECT_EQ(c4, 0);
  EXPECT_NE(o4.find("127.0.0.1"), std::string::npos) << o4;
}

}  // namespace
