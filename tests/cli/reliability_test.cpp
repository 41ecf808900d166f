// The small faults of issue 27 through the real executable: exit codes for
// argument errors, JSON that never breaks on bad bytes, the variant chosen by
// the rulebook, bounded game reads, an unreadable variant folder, a variant
// subfolder given to -o, too many threads, link loops, names against headers,
// a read-only folder, a damaged table rebuilt with its reason, a memory limit
// too low for the threads, and `serve --json`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "damka/table_paths.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Outcome {
  int code;
  std::string out;
};

Outcome shell(const std::string& cmd) {
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  const int status = pclose(f);
  if (WIFSIGNALED(status)) return {128 + WTERMSIG(status), out};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// damka with stdout and stderr together (or stdout only).
Outcome damka(const std::string& args, bool with_stderr = true) {
  return shell("timeout 120 " + std::string(DAMKA_EXE) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null"));
}

// The same as an unprivileged user (root ignores file permissions).
Outcome damka_unprivileged(const std::string& args) {
  const std::string as = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  return shell("timeout 120 " + as + std::string(DAMKA_EXE) + " " + args + " 2>&1");
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Reliability : public ::testing::Test {
 protected:
  // Russian and English tables up to 3 pieces, made once.
  static void SetUpTestSuite() {
    tables_ = fs::temp_directory_path() / ("damka-reliability-" + std::to_string(::getpid()));
    fs::remove_all(tables_);
    for (const char* v : {"russian", "english"}) {
      const Outcome g = damka(std::string("generate -v ") + v + " -n 3 -t 2 -o " + q(tables_));
      ASSERT_EQ(g.code, 0) << g.out;
    }
    fs::permissions(tables_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
  }
  static void TearDownTestSuite() { fs::remove_all(tables_); }
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("damka-reliability-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms::all);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::all, ec);
    for (auto it = fs::recursive_directory_iterator(dir_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_directory(ec)) fs::permissions(it->path(), fs::perms::all, ec);
    fs::remove_all(dir_, ec);
  }
  static fs::path tables_;
  fs::path dir_;
};
fs::path Reliability::tables_;

TEST_F(Reliability, ArgumentErrorsExit2) {
  const std::string out = " -o " + q(dir_);
  for (const std::string& args : {std::string(""), "generate -n 0" + out, std::string("perft -d 0"),
                                 "generate -n 2 --memory ''" + out, "generate -n 2 --split-above -1" + out,
                                 "verify --memory '' " + q(tables_), std::string("probe --no-such-flag W:WKa1:BKh8")}) {
    const Outcome r = damka(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    const Outcome j = damka(args + " --json", false);
    EXPECT_EQ(j.code, 2) << args;
    if (!args.empty()) {
      const json parsed = json::parse(j.out, nullptr, false);
      ASSERT_FALSE(parsed.is_discarded()) << args << ": " << j.out;
      EXPECT_EQ(parsed["exit_code"], 2) << j.out;
    }
  }
  EXPECT_TRUE(has(damka("generate -n 2 --memory ''" + out).out, "empty size"));
  EXPECT_FALSE(fs::exists(dir_ / "russian"));  // nothing was built by a refused command
}

TEST_F(Reliability, ANonUtf8FenUnderJsonIsTheBadFenError) {
  const Outcome r = damka("probe --json --tables " + q(tables_) + " -v russian $'W:W\\xff\\xfe:BKh8'", false);
  EXPECT_EQ(r.code, 2) << r.out;
  const json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_TRUE(has(j["error"].get<std::string>(), "FEN")) << r.out;
  EXPECT_FALSE(has(r.out, "type_error")) << r.out;
}

TEST_F(Reliability, TheRulebookPicksTheVariantOfAGame) {
  std::ofstream(dir_ / "g.pdn") << "[FEN \"W:WKa1,Kc3:BKh8\"]\n*\n";
  const Outcome r = damka("probe --json --rulebook russian-federation --game " + q(dir_ / "g.pdn") + " --tables " +
                              q(tables_),
                          false);
  EXPECT_EQ(r.code, 0) << r.out;
  const json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["variant"], "russian") << r.out;
}

TEST_F(Reliability, AGameFileIsReadWithABound) {
  const auto t0 = std::chrono::steady_clock::now();
  const Outcome r = damka("probe --rulebook russian-federation --game /dev/zero --tables " + q(tables_) +
                          " -v russian W:WKa1:BKh8");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "larger than 1 MiB")) << r.out;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

TEST_F(Reliability, AnUnreadableVariantFolderStopsOnlyItself) {
  fs::copy(tables_, dir_ / "t", fs::copy_options::recursive);
  fs::permissions(dir_ / "t", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir_ / "t" / "russian", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir_ / "t" / "english", fs::perms::none);
  Outcome r = damka_unprivileged("verify -t 2 " + q(dir_ / "t"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "Russian tables in")) << r.out;
  EXPECT_TRUE(has(r.out, "russian: 9 tables verified")) << r.out;
  EXPECT_TRUE(has(r.out, "cannot read " + (dir_ / "t" / "english").string())) << r.out;
  r = damka_unprivileged("probe --tables " + q(dir_ / "t") + " W:WKa1,Kc3:BKh8");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "Russian")) << r.out;
}

TEST_F(Reliability, AVariantSubfolderGivenToGenerateIsItsParent) {
  const Outcome r = damka("generate -v russian -n 2 -t 1 -o " + q(dir_ / "T" / "russian"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "building into " + (dir_ / "T").string())) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "T" / "russian" / "1Kv1K.wdl"));
  EXPECT_FALSE(fs::exists(dir_ / "T" / "russian" / "russian"));
}

TEST_F(Reliability, MoreThreadsThanCoresAreWarnedOf) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const Outcome r = damka("generate -v russian -n 2 -t " + std::to_string(cores + 1) + " -o " + q(dir_));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, std::to_string(cores + 1) + " threads on " + std::to_string(cores) + " cores")) << r.out;
  const Outcome fine = damka("generate -v russian -n 2 -t 1 -o " + q(dir_));
  EXPECT_FALSE(has(fine.out, "cores")) << fine.out;
}

TEST_F(Reliability, LinkLoopsAndFilesForFoldersAreNamedAsSuch) {
  fs::create_symlink(dir_ / "loop", dir_ / "loop");
  Outcome r = damka("generate -v russian -n 2 -o " + q(dir_ / "loop"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "loop of symbolic links")) << r.out;
  EXPECT_FALSE(has(r.out, "File exists")) << r.out;
  std::ofstream(dir_ / "file") << "x";
  r = damka("serve --port 0 --tables " + q(dir_ / "file"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "is not a directory")) << r.out;
  EXPECT_FALSE(has(r.out, "does not exist")) << r.out;
  r = damka("serve --port 0 --tables " + q(dir_ / "loop"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "loop of symbolic links")) << r.out;
}

TEST_F(Reliability, InfoChecksNamesAgainstHeaders) {
  const fs::path russian = dir_ / "russian";
  fs::create_directories(russian);
  fs::copy_file(tables_ / "russian" / "2Kv1K.dtc", russian / "2Kv1K.dtw");
  fs::copy_file(tables_ / "russian" / "2Kv1K.wdl", russian / "2Kv1K.wdl");
  Outcome r = damka("info " + q(russian / "2Kv1K.dtw"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "holds the 2Kv1K dtc table, not the 2Kv1K dtw table its name says")) << r.out;
  // A .wdl/.dtw swap names both files' contents.
  fs::remove(russian / "2Kv1K.wdl");
  fs::remove(russian / "2Kv1K.dtw");
  fs::copy_file(tables_ / "russian" / "2Kv1K.dtw", russian / "2Kv1K.wdl");
  fs::copy_file(tables_ / "russian" / "2Kv1K.wdl", russian / "2Kv1K.dtw");
  r = damka("info " + q(russian));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "2Kv1K.wdl: holds the 2Kv1K dtw table, not the 2Kv1K wdl table its name says")) << r.out;
  EXPECT_TRUE(has(r.out, "2Kv1K.dtw: holds the 2Kv1K wdl table, not the 2Kv1K dtw table its name says")) << r.out;
}

TEST_F(Reliability, AReadOnlyFolderWithEveryTableIsFine) {
  const fs::path t = dir_ / "ro";
  ASSERT_EQ(damka("generate -v russian -n 2 -t 1 -o " + q(t)).code, 0);
  for (const fs::path& d : {t, t / "russian"})
    fs::permissions(d, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  Outcome r = damka_unprivileged("generate -v russian -n 2 -t 1 -o " + q(t));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "nothing to build")) << r.out;
  // A table missing: the folder must be written, and cannot be.
  r = damka_unprivileged("generate -v russian -n 3 -t 1 -o " + q(t));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "lock")) << r.out;
}

TEST_F(Reliability, ADamagedTableIsRebuiltWithItsReason) {
  ASSERT_EQ(damka("generate -v russian -n 2 -t 1 -o " + q(dir_)).code, 0);
  const fs::path f = dir_ / "russian" / "1Kv1K.dtw";
  {
    std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(static_cast<std::streamoff>(fs::file_size(f) / 2));
    io.put('\x5a');
  }
  const Outcome r = damka("generate -v russian -n 2 -t 1 -o " + q(dir_));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "rebuilding 1Kv1K: " + f.string())) << r.out;
  EXPECT_EQ(damka("verify " + q(dir_)).code, 0);
}

TEST_F(Reliability, TooLowAMemoryLimitForTheThreadsIsSaidFirst) {
  // 64 thread stacks (8 MiB each by default) do not fit in 200 MB of address space.
  const Outcome r = shell("bash -c 'ulimit -s 8192; ulimit -v 200000; exec " + std::string(DAMKA_EXE) +
                          " generate -v russian -n 3 -t 64 -o " + q(dir_) + "' 2>&1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "cannot start 64 threads")) << r.out;
  EXPECT_FALSE(has(r.out, "libgomp")) << r.out;
  EXPECT_TRUE(damka::temp_table_files(dir_ / "russian").empty());
  EXPECT_FALSE(fs::exists(dir_ / "russian" / "1Kv1K.wdl"));
}

TEST_F(Reliability, ServeTakesJsonOneLinePerEvent) {
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execl(DAMKA_EXE, DAMKA_EXE, "serve", "--json", "--port", "0", "--tables", tables_.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  FILE* f = fdopen(out[0], "r");
  char line[4096];
  ASSERT_NE(fgets(line, sizeof line, f), nullptr);
  const json listening = json::parse(line, nullptr, false);
  ASSERT_FALSE(listening.is_discarded()) << line;
  EXPECT_EQ(listening["command"], "serve");
  EXPECT_EQ(listening["event"], "listening");
  const int port = listening["port"].get<int>();
  EXPECT_GT(port, 0);
  const Outcome got = shell("curl -s http://127.0.0.1:" + std::to_string(port) + "/healthz");
  EXPECT_TRUE(has(got.out, "\"status\":\"ok\"")) << got.out;
  // Every line is one JSON event; the request's log line may come after
  // the server's own (e.g. its statute values ready in the background).
  auto next_event = [&](const std::string& event, const std::string& text) {
    for (int i = 0; i < 20 && fgets(line, sizeof line, f) != nullptr; ++i) {
      const json e = json::parse(line, nullptr, false);
      EXPECT_FALSE(e.is_discarded()) << line;
      if (e.is_discarded() || !e.contains("event")) continue;
      if (e["event"] == event && (text.empty() || has(e.value("line", std::string()), text))) return e;
    }
    ADD_FAILURE() << "no " << event << " event " << text;
    return json();
  };
  const json logged = next_event("log", "GET /healthz 200");
  EXPECT_EQ(logged["event"], "log");
  kill(pid, SIGTERM);
  const json stopped = next_event("stopped", "");
  EXPECT_EQ(stopped["event"], "stopped") << line;
  EXPECT_EQ(stopped["requests"], 1) << line;
  int status = 0;
  waitpid(pid, &status, 0);
  fclose(f);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
