// Files damka creates: fresh unpredictable names opened O_EXCL|O_NOFOLLOW,
// so a symbolic or hard link planted at any name is never written through.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "damka/safe_file.hpp"
#include "damka/table_paths.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

// A test's own temporary folder (temp_dir.hpp).
struct Dir : testing::TempDir {
  Dir() : TempDir("safe_file") {}
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(SafeFile, TemporaryNamesAreFreshAndOfTheCleanupPattern) {
  Dir d;
  std::set<std::string> names;
  for (int i = 0; i < 20; ++i) {
    auto f = create_temp_file(d.path, "2Kv1K.wdl");
    ASSERT_TRUE(f.ok()) << f.message();
    ::close(f->fd);
    names.insert(f->path.filename().string());
    EXPECT_EQ(temp_table_file_pid(f->path.filename().string()), ::getpid()) << f->path;
    // Not the old predictable counter names <pid>.0, <pid>.1, ...
    EXPECT_NE(f->path.filename().string(), "2Kv1K.wdl.tmp." + std::to_string(::getpid()) + "." + std::to_string(i));
  }
  EXPECT_EQ(names.size(), 20u);
}

TEST(SafeFile, ReplaceFileReplacesALinkInsteadOfWritingThroughIt) {
  Dir d;
  const fs::path victim = d.path / "victim";
  std::ofstream(victim) << "precious";
  const fs::path sym = d.path / "note", hard = d.path / "note2";
  fs::create_symlink(victim, sym);
  fs::create_hard_link(victim, hard);
  ASSERT_TRUE(replace_file(sym, "new text\n").ok());
  ASSERT_TRUE(replace_file(hard, "other text\n").ok());
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(sym));
  EXPECT_EQ(slurp(sym), "new text\n");
  EXPECT_EQ(slurp(hard), "other text\n");
  EXPECT_EQ(fs::hard_link_count(victim), 1u);
  // Nothing else left in the folder: victim, note, note2.
  EXPECT_EQ(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()), 3);
}

TEST(SafeFile, ReplaceFileFailsCleanlyWhereItCannotWrite) {
  Dir d;
  const Status s = replace_file(d.path / "missing-folder" / "note", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_NE(s.message().find("missing-folder"), std::string::npos) << s.message();
}

TEST(SafeFile, OnlyPlainFilesCountForCleanup) {
  Dir d;
  std::ofstream(d.path / "f") << "x";
  fs::create_symlink(d.path / "f", d.path / "l");
  fs::create_directory(d.path / "sub");
  EXPECT_TRUE(is_plain_file(d.path / "f"));
  EXPECT_FALSE(is_plain_file(d.path / "l"));
  EXPECT_FALSE(is_plain_file(d.path / "sub"));
  EXPECT_FALSE(is_plain_file(d.path / "none"));
}

}  // namespace
}  // namespace damka
