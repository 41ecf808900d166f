// The `damka` command under faults: a kill in the write/rename window, a
// second concurrent run, a FIFO, too few file descriptors, and small input
// mistakes each give a clear message and a non-zero exit, nothing stray
// or lost; every command reads its tables through the CLI's Context.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "damka/output_lock.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code;         // exit status; 128 + signal when killed
  std::string out;  // stdout and stderr
};

// Runs a shell command line (stdout and stderr together).
Outcome shell(const std::string& cmd) {
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  const int status = pclose(f);
  if (WIFSIGNALED(status)) return {128 + WTERMSIG(status), out};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

Outcome damka(const std::string& args, const std::string& env = "") {
  return shell(env + (env.empty() ? "" : " ") + "timeout 120 " + DAMKA_EXE + " " + args);
}

// The same command line with the faults DAMKA_TEST_FAULT names: the tests'
// damka_faulty (tests/support/faulty_main.cpp); the shipped damka has none.
Outcome damka_faulty(const std::string& args, const std::string& fault) {
  return shell("DAMKA_TEST_FAULT=" + fault + " timeout 120 " + DAMKA_FAULTY_EXE + " " + args);
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

class CliFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("damka-cli-faults-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path family() const { return dir_ / "russian"; }
  std::vector<fs::path> temp_files() const { return damka::temp_table_files(family()); }
  fs::path dir_;
};

TEST_F(CliFaults, KillInTheWriteWindowLeavesANamedStrayFileTheNextRunRemoves) {
  for (const char* fault : {"kill-before-rename", "kill-mid-write"}) {
    SCOPED_TRACE(fault);
    fs::remove_all(dir_);
    Outcome r = damka_faulty("generate -v russian -n 2 -t 1 -o " + q(dir_), fault);
    EXPECT_EQ(r.code, 128 + 9) << r.out;  // SIGKILL
    // The files of a material stream together: a kill leaves one temporary
    // file per metric being written; each is named, then removed.
    ASSERT_GE(temp_files().size(), 1u) << r.out;
    ASSERT_LE(temp_files().size(), 4u) << r.out;
    const std::string stray = temp_files().back().filename().string();

    r = damka("info " + q(dir_));
    EXPECT_NE(r.out.find("stray temporary file"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(stray), std::string::npos) << r.out;
    r = damka("info --json " + q(dir_));
    EXPECT_NE(r.out.find(stray), std::string::npos) << r.out;
    r = damka("verify -v russian " + q(dir_));
    EXPECT_NE(r.out.find(stray), std::string::npos) << r.out;

    r = damka("generate -v russian -n 2 -t 1 -o " + q(dir_));
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("removed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(stray), std::string::npos) << r.out;
    EXPECT_TRUE(temp_files().empty());
    r = damka("verify -v russian " + q(dir_));
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(r.out.find("stray"), std::string::npos) << r.out;
  }
}

// A temporary file whose writer (the pid in its name) is a damka process
// still running is no stray: info and verify say it is being written.
TEST_F(CliFaults, ATemporaryFileOfARunningDamkaIsNotCalledStray) {
  ASSERT_EQ(damka("generate -v russian -n 2 -t 1 -o " + q(dir_)).code, 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a stand-in for a running `damka generate`
    ::prctl(PR_SET_NAME, "damka-writer", 0, 0, 0);
    for (;;) ::pause();
  }
  // The child's name is set once it runs: wait for it (at most 5 s).
  const std::string comm = "/proc/" + std::to_string(child) + "/comm";
  for (int i = 0; i < 500; ++i) {
    std::string name;
    std::getline(std::ifstream(comm) >> std::ws, name);
    if (name.rfind("damka", 0) == 0) break;
    ::usleep(10000);
  }
  const fs::path tmp = family() / ("1Kv1K.dtw.tmp." + std::to_string(child) + ".7");
  { std::ofstream(tmp) << "partial"; }
  for (const char* cmd : {"info ", "verify -v russian "}) {
    SCOPED_TRACE(cmd);
    const Outcome r = damka(cmd + q(dir_));
    EXPECT_NE(r.out.find("of damka process " + std::to_string(child) + ", still running"), std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("stray"), std::string::npos) << r.out;
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  for (const char* cmd : {"info ", "verify -v russian "}) {
    SCOPED_TRACE(cmd);
    const Outcome r = damka(cmd + q(dir_));
    EXPECT_NE(r.out.find("stray temporary file " + tmp.string() + " (left by a killed run"), std::string::npos)
        << r.out;
  }
}

// The table files of a family folder, by name, with their bytes.
std::map<std::string, std::string> table_bytes(const fs::path& family) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(family)) {
    const std::string ext = e.path().extension().string();
    if (ext != ".wdl" && ext != ".dtw" && ext != ".dtc") continue;
    std::ifstream in(e.path(), std::ios::binary);
    out[e.path().filename().string()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

// A one-side build (generate --one-side, FORMAT.md 3.5) killed half-way, in
// the write of a table or before its rename, resumes with the same command
// to the bytes of a build never killed; the materials finished before the
// kill are kept, not rebuilt.
TEST_F(CliFaults, AKilledOneSideBuildResumesToTheSameBytes) {
  const std::string args = "generate -v russian -n 3 -t 1 --one-side -o ";
  const fs::path whole = dir_ / "whole", killed = dir_ / "killed";
  Outcome r = damka(args + q(whole));
  ASSERT_EQ(r.code, 0) << r.out;
  const auto want = table_bytes(whole / "russian");
  std::size_t one_side = 0;
  for (const auto& [name, bytes] : want) {
    auto reader = damka::TableReader::open(whole / "russian" / name);
    ASSERT_TRUE(reader.ok()) << reader.message();
    one_side += (*reader)->header().stored_side != damka::StoredSide::Both;
  }
  ASSERT_GT(one_side, 2u);
  ASSERT_GT(want.size(), 12u);
  for (const std::string fault : {"kill-mid-write-", "kill-before-rename-"}) {
    for (const std::size_t at : {want.size() / 3, want.size() - 2}) {
      SCOPED_TRACE(fault + std::to_string(at));
      fs::remove_all(killed);
      r = damka_faulty(args + q(killed), fault + std::to_string(at));
      EXPECT_EQ(r.code, 128 + 9) << r.out;  // SIGKILL
      const auto before = table_bytes(killed / "russian");
      EXPECT_GT(before.size() + 4, at) << r.out;  // the materials before the kill (a material streams its 3 files together)
      EXPECT_FALSE(before.empty()) << r.out;
      EXPECT_LT(before.size(), want.size()) << r.out;
      std::map<std::string, std::uintmax_t> inodes;  // of the materials finished
      for (const auto& [name, bytes] : before) {
        // A material with all three files (one missing is built again whole).
        const std::string stem = fs::path(name).stem().string();
        if (!before.count(stem + ".wdl") || !before.count(stem + ".dtw") || !before.count(stem + ".dtc")) continue;
        struct stat st {};
        ASSERT_EQ(::stat((killed / "russian" / name).c_str(), &st), 0);
        inodes[name] = st.st_ino;
      }
      r = damka(args + q(killed));
      EXPECT_EQ(r.code, 0) << r.out;
      EXPECT_TRUE(damka::temp_table_files(killed / "russian").empty());
      const auto got = table_bytes(killed / "russian");
      ASSERT_EQ(got.size(), want.size()) << r.out;
      for (const auto& [name, bytes] : want) {
        ASSERT_TRUE(got.count(name)) << name;
        EXPECT_TRUE(got.at(name) == bytes) << name << " differs from the build never killed";
      }
      EXPECT_FALSE(inodes.empty());
      for (const auto& [name, inode] : inodes) {  // kept, not written again
        struct stat st {};
        ASSERT_EQ(::stat((killed / "russian" / name).c_str(), &st), 0);
        EXPECT_EQ(st.st_ino, inode) << name;
      }
    }
  }
}

TEST_F(CliFaults, SecondConcurrentRunRefusesNamingTheHolder) {
  auto held = damka::OutputLock::acquire(damka::rules_of(damka::Variant::Russian), dir_);
  ASSERT_TRUE(held.ok()) << held.message();
  const Outcome r = damka("generate -v russian -n 2 -t 1 -o " + q(dir_));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("another damka generate (pid " + std::to_string(::getpid())), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(family() / "1Kv1K.wdl"));
}

TEST_F(CliFaults, FifoInPlaceOfATableNeitherHangsNorHidesTheOthers) {
  ASSERT_EQ(damka("generate -v russian -n 2 -t 1 -o " + q(dir_)).code, 0);
  const fs::path fifo = family() / "1Kv1M.dtw";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  Outcome r = damka("info " + q(fifo));
  EXPECT_EQ(r.code, 1) << r.out;  // not 124 (timeout)
  EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;
  r = damka("info " + q(dir_));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("1Kv1M.dtw: not a regular file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1Kv1K.wdl"), std::string::npos) << r.out;  // the others are still shown
  // A won position (a drawn one never reads its DTW file).
  r = damka("probe --tables " + q(dir_) + " 'W:WKa1:Bh6'");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;
}

TEST_F(CliFaults, SymlinkLoopDoesNotFailTheWholeInfo) {
  ASSERT_EQ(damka("generate -v russian -n 2 -t 1 -o " + q(dir_)).code, 0);
  fs::create_symlink("loop.wdl", family() / "loop.wdl");
  fs::create_symlink("b.wdl", family() / "a.wdl");
  fs::create_symlink("a.wdl", family() / "b.wdl");
  const Outcome r = damka("info " + q(dir_));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("loop.wdl"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1Kv1K.wdl"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1Mv1M.dtc"), std::string::npos) << r.out;
}

// Runs damka with only descriptors 0..2 inherited and at most `limit` open.
Outcome damka_with_fd_limit(const std::vector<std::string>& args, rlim_t limit) {
  int out[2];
  if (::pipe(out) != 0) return {-1, "pipe failed"};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    for (int fd = 3; fd < 1024; ++fd) ::close(fd);  // whatever the test runner left open
    const rlimit rl{limit, limit};
    ::setrlimit(RLIMIT_NOFILE, &rl);
    std::vector<char*> argv{const_cast<char*>(DAMKA_EXE)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(DAMKA_EXE, argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text};
}

TEST_F(CliFaults, TooFewFileDescriptorsIsAnIoErrorNotCorruption) {
  ASSERT_EQ(damka("generate -v russian -n 2 -t 1 -o " + q(dir_)).code, 0);
  // stdin, stdout, stderr and one more: the first table opens, the next cannot.
  // A won position: its WDL file opens, its DTW file cannot.
  const Outcome r = damka_with_fd_limit({"probe", "--tables", dir_.string(), "W:WKa1:Bh6"}, 4);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("Too many open files"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("I/O error"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("corrupt"), std::string::npos) << r.out;
}

TEST_F(CliFaults, SmallMistakesAreRefusedClearly) {
  Outcome r = damka("generate -v russian -n 2 -o ''");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--out is empty"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("russian/1Kv1K.wdl"));

  r = damka("generate -v russian -m 13Mv1K --dry-run -o " + q(dir_));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("14 pieces"), std::string::npos) << r.out;

  r = damka("frobnicate");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown command 'frobnicate'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("generate"), std::string::npos) << r.out;

  // A huge FEN is not echoed whole (let alone twice); control characters are escaped.
  const std::string huge = "W:W" + std::string(120000, 'a');
  r = damka("probe -v russian --tables " + q(dir_) + " '" + huge + "'");
  EXPECT_EQ(r.code, 2) << r.out.substr(0, 300);
  EXPECT_LT(r.out.size(), 1000u) << r.out.substr(0, 300);
  EXPECT_NE(r.out.find("120003 bytes"), std::string::npos) << r.out.substr(0, 300);
  r = damka("probe -v russian --tables " + q(dir_) + " \"$(printf 'W:Wa1\\033[31m:Bb8')\"");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\x1b"), std::string::npos) << r.out;

  r = damka("probe --tables '/tmp/" + std::string(5000, 'd') + "' 'W:WKa1:BKh2'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("too long"), std::string::npos) << r.out.substr(r.out.size() > 300 ? r.out.size() - 300 : 0);
  r = damka("verify -v russian '/tmp/" + std::string(5000, 'd') + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("too long"), std::string::npos) << r.out.substr(r.out.size() > 300 ? r.out.size() - 300 : 0);
}

// Every command that reads tables reads them through the CLI's Context
// (damka_faulty's FaultEnv): the same commands that succeed with the
// shipped damka fail, with an exit code of 1, when every read or every
// folder listing of the test Env fails.
TEST_F(CliFaults, EveryCommandThatReadsTablesReadsThroughTheContextEnv) {
  ASSERT_EQ(damka("generate -v russian -n 3 -t 1 -o " + q(dir_)).code, 0);
  const std::string probe = "probe -v russian --tables " + q(dir_) + " W:WKa1,Kc3:BKh8";
  const std::vector<std::string> readers = {
      probe,
      "info " + q(family()),
      "info --stats " + q(dir_),
      "verify " + q(dir_),
      "statutes --max-pieces 3 -m 2Kv1K --tables " + q(dir_),
  };
  for (const std::string& args : readers) {
    SCOPED_TRACE(args);
    const Outcome fine = damka(args);
    EXPECT_EQ(fine.code, 0) << fine.out;
    const Outcome failed = damka_faulty(args, "eio-read");
    EXPECT_EQ(failed.code, 1) << failed.out;
  }
  for (const std::string& args : {"info " + q(family()), "verify " + q(dir_), "statutes --max-pieces 3 -m 2Kv1K --tables " + q(dir_)}) {
    const Outcome failed = damka_faulty(args, "eio-read");
    EXPECT_NE(failed.out.find("Input/output error"), std::string::npos) << args << "\n" << failed.out;
  }
  // Probing tables that cannot be read: the I/O error naming a file, with or
  // without -v (not "no tables", nor an advice to build them).
  for (const std::string& args : {probe, "probe --tables " + q(dir_) + " W:WKa1,Kc3:BKh8"}) {
    const Outcome failed = damka_faulty(args, "eio-read");
    EXPECT_EQ(failed.code, 1) << args << "\n" << failed.out;
    EXPECT_NE(failed.out.find("Input/output error"), std::string::npos) << args << "\n" << failed.out;
    EXPECT_NE(failed.out.find((dir_ / "russian").string() + "/"), std::string::npos) << args << "\n" << failed.out;
    EXPECT_EQ(failed.out.find("no tables"), std::string::npos) << args << "\n" << failed.out;
    EXPECT_EQ(failed.out.find("build them"), std::string::npos) << args << "\n" << failed.out;
  }
  // A folder that cannot be listed: an I/O error naming the folder.
  for (const std::string& args : {probe, "verify " + q(dir_), "info --stats " + q(dir_)}) {
    const Outcome failed = damka_faulty(args, "eio-list");
    EXPECT_EQ(failed.code, 1) << args << "\n" << failed.out;
    EXPECT_NE(failed.out.find("Input/output error"), std::string::npos) << args << "\n" << failed.out;
    EXPECT_NE(failed.out.find(dir_.string()), std::string::npos) << args << "\n" << failed.out;
  }
}

}  // namespace
