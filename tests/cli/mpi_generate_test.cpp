// `mpirun -np 3 damka generate` (README, "Building on several machines"):
// Russian and English up to 4 pieces give files byte-identical to a build by
// one process; a rank killed mid-run stops the job naming the rank, leaves
// only complete tables, and the same command resumes to the same files.
// Skipped, saying why, when damka was built without MPI.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "damka/table_paths.hpp"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code;
  std::string out;
};

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

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

std::string mpirun(int ranks) {
  std::string cmd = std::string(DAMKA_MPIEXEC) + " --oversubscribe --bind-to none -np " + std::to_string(ranks);
  if (::geteuid() == 0) cmd += " --allow-run-as-root";
  return cmd;
}

// The table files of a family folder (no hidden files): name -> bytes.
std::map<std::string, std::string> files_of(const fs::path& family) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(family)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::ifstream f(e.path(), std::ios::binary);
    out[name] = std::string(std::istreambuf_iterator<char>(f), {});
  }
  return out;
}

class MpiGenerate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("damka-mpi-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  void SetUp() override {
#if !DAMKA_MPI_BUILT
    GTEST_SKIP() << "damka was built without MPI (install libopenmpi-dev and reconfigure): mpirun tests skipped";
#endif
  }
  // The files of a single-process build (made once per variant).
  static const std::map<std::string, std::string>& reference(const std::string& variant) {
    static std::map<std::string, std::map<std::string, std::string>> cache;
    if (!cache.count(variant)) {
      const fs::path dir = root_ / ("single-" + variant);
      const Outcome r = shell(std::string(DAMKA_EXE) + " generate -v " + variant + " -n 4 -t 1 -o " + q(dir));
      EXPECT_EQ(r.code, 0) << r.out;
      cache[variant] = files_of(dir / variant);
    }
    return cache[variant];
  }
  static fs::path root_;
};
fs::path MpiGenerate::root_;

TEST_F(MpiGenerate, ThreeRanksBuildTheSameFilesAsOneProcess) {
  for (const std::string variant : {"russian", "english"}) {
    SCOPED_TRACE(variant);
    const auto& want = reference(variant);
    ASSERT_GT(want.size(), 30u);
    // The plan's own choice, then every material with men split across the
    // ranks (the level exchange), then none split (materials in parallel).
    for (const std::string split : {"", " --split-above 0", " --split-above 1000000000"}) {
      SCOPED_TRACE(split);
      const fs::path dir = root_ / ("ranks-" + variant + std::to_string(split.size()));
      const Outcome r = shell(mpirun(3) + " " + DAMKA_EXE + " generate -v " + variant + " -n 4 -t 1 -o " + q(dir) + split);
      ASSERT_EQ(r.code, 0) << r.out;
      EXPECT_NE(r.out.find("tables"), std::string::npos) << r.out;
      if (split == " --split-above 0") {  // kings-only materials too: a sweep every rank shares
        const std::size_t line = r.out.find("\n2Kv1K ");
        ASSERT_NE(line, std::string::npos) << r.out;
        const std::size_t next = r.out.find('\n', line + 1);
        EXPECT_EQ(r.out.find("built by every rank (split)", next), r.out.find_first_not_of(' ', next + 1)) << r.out;
      }
      const auto got = files_of(dir / variant);
      ASSERT_EQ(got.size(), want.size()) << r.out;
      for (const auto& [name, bytes] : want) {
        ASSERT_TRUE(got.count(name)) << name << " missing\n" << r.out;
        EXPECT_TRUE(got.at(name) == bytes) << name << " differs from the single-process build";
      }
      // Nothing left beside the tables: no temporary files, no rank notes.
      EXPECT_TRUE(damka::temp_table_files(dir / variant).empty());
      for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find(".rank"), std::string::npos) << e.path();
    }
  }
}

TEST_F(MpiGenerate, AKilledRankStopsTheJobAndTheSameCommandResumes) {
  const auto& want = reference("russian");
  const fs::path dir = root_ / "killed";
  // The fault runs the tests' damka_faulty (the shipped damka has no fault
  // hooks); the resume runs the shipped damka.
  const auto cmd = [&](const char* exe) {
    return mpirun(3) + " -x DAMKA_TEST_FAULT " + exe + " generate -v russian -n 4 -t 1 -o " + q(dir);
  };
  Outcome r = shell("DAMKA_TEST_FAULT=kill-rank-1 " + cmd(DAMKA_FAULTY_EXE));
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("rank 1"), std::string::npos) << r.out;  // mpirun names the rank
  // Only complete tables: each file there is the single-process one.
  const auto partial = files_of(dir / "russian");
  EXPECT_LT(partial.size(), want.size()) << r.out;
  for (const auto& [name, bytes] : partial) {
    if (name.find(".tmp.") != std::string::npos) continue;  // a kill leaves temporary files; the next run removes them
    ASSERT_TRUE(want.count(name)) << name;
    EXPECT_TRUE(want.at(name) == bytes) << name << " is not a complete table";
  }

  r = shell("DAMKA_TEST_FAULT= " + cmd(DAMKA_EXE));
  ASSERT_EQ(r.code, 0) << r.out;
  // The resume names the rank and the material the killed job was building.
  const auto at = r.out.find("did not finish");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1 of 3", at), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("was building", at), std::string::npos) << r.out;
  const auto got = files_of(dir / "russian");
  ASSERT_EQ(got.size(), want.size()) << r.out;
  for (const auto& [name, bytes] : want) {
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_TRUE(got.at(name) == bytes) << name << " differs from the single-process build";
  }
  EXPECT_TRUE(damka::temp_table_files(dir / "russian").empty());
}

// A --memory that the first table to build fits and a later one does not
// is refused on every rank before any table is built: no rank waits for
// another, the job exits non-zero and writes nothing.
TEST_F(MpiGenerate, EveryRankRefusesATooSmallBudgetBeforeBuilding) {
  const fs::path dir = root_ / "small-budget";
  const Outcome plan =
      shell(std::string(DAMKA_EXE) + " generate -v russian -n 4 -t 1 --dry-run --json -o " + q(dir) + " 2>/dev/null");
  ASSERT_EQ(plan.code, 0) << plan.out;
  std::uint64_t first_need = 0, most = 0;
  const auto j = nlohmann::json::parse(plan.out);
  for (const auto& t : j["tables"]) {
    const std::uint64_t need = t["predicted"]["minimum_memory_bytes"];
    if (first_need == 0) first_need = need;
    most = std::max(most, need);
  }
  ASSERT_GT(most, first_need) << plan.out;
  const Outcome r = shell(mpirun(2) + " " + DAMKA_EXE + " generate -v russian -n 4 -t 1 --memory " +
                          std::to_string(first_need) + " -o " + q(dir));
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(": needs "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("other materials to build need more than the limit too"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("built"), std::string::npos) << r.out;
  const fs::path family = dir / "russian";
  if (fs::exists(family))
    for (const auto& e : fs::directory_iterator(family))
      EXPECT_EQ(e.path().filename().string()[0], '.') << e.path() << " written\n" << r.out;
}

TEST_F(MpiGenerate, DryRunPlansEveryRank) {
  const fs::path dir = root_ / "dry";
  const Outcome r = shell(std::string(DAMKA_EXE) + " generate -v russian -n 4 -t 1 --dry-run --ranks 3 -o " + q(dir));
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* s : {"Plan for 3 ranks", "\n0 ", "\n1 ", "\n2 ", "all ranks done after"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

}  // namespace
