// The file-system seam (env.hpp): the POSIX Env's temporary files, reads and
// locks, and what the table reader and writer make of the faults a test Env
// injects (an I/O error is Io and passes, a short file is Corrupt, a failed
// write leaves nothing behind).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "damka/env.hpp"
#include "damka/safe_file.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"
#include "fault_env.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;
using testing::FaultEnv;
using testing::FaultPlan;

// A test's own temporary folder (temp_dir.hpp).
struct Dir : testing::TempDir {
  Dir() : TempDir("env") {}
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TableHeader small_header(Metric metric) {
  return default_table_header(rules_of(Variant::Russian), *Material::parse("2Kv1K"), metric);
}

std::vector<std::uint16_t> small_codes(const TableHeader& h) {
  std::vector<std::uint16_t> codes(h.slots);
  for (std::size_t i = 0; i < codes.size(); ++i)
    codes[i] = h.metric == Metric::WDL ? static_cast<std::uint16_t>(i % 3) : static_cast<std::uint16_t>(i % 40);
  return codes;
}

TEST(Env, PosixTempFileIsWrittenReadAndRenamedIntoPlace) {
  Dir d;
  Env& env = default_env();
  auto t = env.create_temp(d.path, "2Kv1K.wdl", 0644);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(temp_table_file_pid(t->path.filename().string()), ::getpid()) << t->path;
  ASSERT_TRUE(t->file->write(3, "def", 3).ok());
  ASSERT_TRUE(t->file->write(0, "abc", 3).ok());
  char back[6];
  ASSERT_TRUE(t->file->read(0, 6, back).ok());
  EXPECT_EQ(std::string(back, 6), "abcdef");
  // Past the end: the file ends early (Corrupt), not an I/O error.
  const Status past = t->file->read(4, 4, back);
  EXPECT_EQ(past.code(), ErrorCode::Corrupt) << past.message();
  auto info = t->file->info();
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->regular);
  EXPECT_EQ(info->size, 6u);
  ASSERT_TRUE(t->file->sync().ok());
  ASSERT_TRUE(t->file->close().ok());
  const fs::path final_path = d.path / "2Kv1K.wdl";
  ASSERT_TRUE(env.rename(t->path, final_path).ok());
  EXPECT_EQ(slurp(final_path), "abcdef");
  EXPECT_EQ(d.entries(), 1u);
  auto st = env.stat(final_path);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->inode, info->inode);
  EXPECT_EQ(env.stat(d.path / "none").code(), ErrorCode::NotFound);
  EXPECT_EQ(env.open_read(d.path / "none").code(), ErrorCode::NotFound);
  EXPECT_EQ(env.remove(d.path / "none").code(), ErrorCode::NotFound);
  ASSERT_TRUE(env.remove(final_path).ok());
  EXPECT_EQ(d.entries(), 0u);
}

TEST(Env, PosixLockFileIsExclusiveAndNeverALink) {
  Dir d;
  Env& env = default_env();
  const fs::path lock = d.path / "x.lock";
  auto a = env.open_lock_file(lock);
  ASSERT_TRUE(a.ok()) << a.message();
  auto b = env.open_lock_file(lock);
  ASSERT_TRUE(b.ok()) << b.message();
  auto first = (*a)->try_lock();
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(*first);
  auto second = (*b)->try_lock();
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(*second);  // held by the other open file
  a->reset();             // released
  auto third = (*b)->try_lock();
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(*third);

  const fs::path victim = d.path / "victim", link = d.path / "link.lock";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, link);
  auto linked = env.open_lock_file(link);
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.code(), ErrorCode::Other);
  EXPECT_NE(linked.message().find("symbolic link"), std::string::npos) << linked.message();
  EXPECT_EQ(slurp(victim), "precious");
}

TEST(Env, PosixListsAndMakesFolders) {
  Dir d;
  Env& env = default_env();
  ASSERT_TRUE(env.make_dirs(d.path / "a" / "b" / "c").ok());
  EXPECT_TRUE(env.make_dirs(d.path / "a" / "b").ok());  // there already: nothing to do
  { std::ofstream(d.path / "a" / "file.txt") << "x"; }
  auto names = env.list_dir(d.path / "a");
  ASSERT_TRUE(names.ok()) << names.message();
  std::sort(names->begin(), names->end());
  EXPECT_EQ(*names, (std::vector<std::string>{"b", "file.txt"}));
  auto info = env.stat(d.path / "a" / "b");
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->directory);
  EXPECT_FALSE(info->regular);
  EXPECT_EQ(env.list_dir(d.path / "missing").code(), ErrorCode::NotFound);
  EXPECT_EQ(env.list_dir(d.path / "a" / "file.txt").code(), ErrorCode::NotFound);
  // A file where a folder should be: Io, naming it (not a bare "File exists").
  const Status blocked = env.make_dirs(d.path / "a" / "file.txt" / "sub");
  EXPECT_EQ(blocked.code(), ErrorCode::Io);
  EXPECT_NE(blocked.message().find("file.txt: not a directory"), std::string::npos) << blocked.message();
}

// A folder listing or the making of a folder that the system refuses is an
// I/O error where the libraries list and make folders (never Corrupt,
// never a crash): the scan of a tables folder, the output lock's folder.
TEST(Env, ListingAndMkdirFaultsAreIoErrors) {
  Dir d;
  ASSERT_TRUE(default_env().make_dirs(d.path / "russian").ok());
  { std::ofstream(d.path / "russian" / "2Kv1K.wdl.tmp.1.7") << "x"; }
  ASSERT_TRUE(scan_table_folder(d.path).ok());
  EXPECT_EQ(temp_table_files(d.path / "russian").size(), 1u);

  FaultPlan list;
  list.list_errno = EIO;
  FaultEnv unlistable(list);
  auto scan = scan_table_folder(d.path, unlistable);
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.code(), ErrorCode::Io) << scan.message();
  EXPECT_NE(scan.message().find(d.path.string() + ": Input/output error"), std::string::npos) << scan.message();
  auto family = scan_table_folder(d.path / "russian", unlistable);
  EXPECT_EQ(family.code(), ErrorCode::Io) << family.message();
  EXPECT_TRUE(temp_table_files(d.path / "russian", unlistable).empty());  // none known: nothing removed

  FaultPlan mkdir;
  mkdir.mkdir_errno = EACCES;
  FaultEnv unmakeable(mkdir);
  const Status made = unmakeable.make_dirs(d.path / "new" / "folder");
  EXPECT_EQ(made.code(), ErrorCode::Io);
  EXPECT_NE(made.message().find("Permission denied"), std::string::npos) << made.message();
  EXPECT_TRUE(unmakeable.make_dirs(d.path / "russian").ok());  // there already
  EXPECT_FALSE(fs::exists(d.path / "new"));
}

TEST(Env, FaultNamesAreParsed) {
  EXPECT_TRUE(testing::fault_plan_named("kill-mid-write")->kill_at_table_header);
  EXPECT_TRUE(testing::fault_plan_named("kill-before-rename")->kill_before_table_rename);
  EXPECT_EQ(testing::fault_plan_named("kill-before-rename")->kill_at_table, 1);
  const auto tenth = testing::fault_plan_named("kill-before-rename-10");
  ASSERT_TRUE(tenth.has_value());
  EXPECT_TRUE(tenth->kill_before_table_rename);
  EXPECT_FALSE(tenth->kill_at_table_header);
  EXPECT_EQ(tenth->kill_at_table, 10);
  EXPECT_TRUE(testing::fault_plan_named("kill-mid-write-3")->kill_at_table_header);
  EXPECT_EQ(testing::fault_plan_named("kill-mid-write-3")->kill_at_table, 3);
  EXPECT_FALSE(testing::fault_plan_named("kill-mid-write-0").has_value());
  const auto enospc = testing::fault_plan_named("enospc-write-7");
  ASSERT_TRUE(enospc.has_value());
  EXPECT_EQ(enospc->fail_write, 7);
  EXPECT_EQ(enospc->write_errno, ENOSPC);
  EXPECT_EQ(testing::fault_plan_named("eio-read")->read_errno, EIO);
  EXPECT_EQ(testing::fault_plan_named("eio-list")->list_errno, EIO);
  EXPECT_EQ(testing::fault_plan_named("eacces-mkdir")->mkdir_errno, EACCES);
  EXPECT_FALSE(testing::fault_plan_named("enospc-write-x").has_value());
  EXPECT_FALSE(testing::fault_plan_named("no-such-fault").has_value());
}

TEST(Env, ReplaceFileThatCannotWriteLeavesTheOldFileAndNoTemporary) {
  Dir d;
  const fs::path note = d.path / "note";
  std::ofstream(note) << "old";
  FaultPlan plan;
  plan.fail_write = 1;
  plan.write_errno = ENOSPC;
  FaultEnv env(plan);
  const Status s = replace_file(note, "new text", 0644, env);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
  EXPECT_EQ(slurp(note), "old");
  EXPECT_EQ(d.entries(), 1u);  // no temporary file left
}

// A full disk (or EIO) during a table write, whichever write it hits: an
// I/O error naming the reason, never a corrupt or partial file; the same
// write through a healthy Env gives the default Env's bytes.
TEST(Env, TableWriteThatFailsIsAnIoErrorAndLeavesNothing) {
  Dir d;
  const fs::path reference = d.path / "reference" / "2Kv1K.dtw";
  fs::create_directories(reference.parent_path());
  for (Metric metric : {Metric::WDL, Metric::DTW}) {
    SCOPED_TRACE(std::string(metric_name(metric)));
    const TableHeader h = small_header(metric);
    const std::vector<std::uint16_t> codes = small_codes(h);
    ASSERT_TRUE(write_table(reference, h, codes).ok());
    const fs::path path = d.path / ("2Kv1K." + std::string(metric_name(metric)));
    // Count the writes of a healthy run through the test Env.
    FaultEnv counting(FaultPlan{});
    WriteOptions wo;
    wo.env = &counting;
    ASSERT_TRUE(write_table(path, h, codes, wo).ok());
    EXPECT_EQ(slurp(path), slurp(reference));
    const int writes = counting.writes();
    ASSERT_GT(writes, 1);
    fs::remove(path);
    for (int n = 1; n <= writes; ++n) {
      SCOPED_TRACE("failing write " + std::to_string(n));
      FaultPlan plan;
      plan.fail_write = n;
      plan.write_errno = n % 2 ? ENOSPC : EIO;
      FaultEnv env(plan);
      wo.env = &env;
      const Status s = write_table(path, h, codes, wo);
      ASSERT_FALSE(s.ok());
      EXPECT_NE(s.code(), ErrorCode::Corrupt) << s.message();
      EXPECT_NE(s.message().find(n % 2 ? "No space left on device" : "Input/output error"), std::string::npos)
          << s.message();
      EXPECT_FALSE(fs::exists(path));
      EXPECT_EQ(d.entries(), 1u);  // the reference folder only: no temporary file
    }
  }
}

TEST(Env, ReaderFaultsAreIoOrCorruptAsTheEnvSays) {
  Dir d;
  const TableHeader h = small_header(Metric::DTW);
  const fs::path path = d.path / "2Kv1K.dtw";
  ASSERT_TRUE(write_table(path, h, small_codes(h)).ok());

  FaultPlan eio;
  eio.read_errno = EIO;
  FaultEnv failing(eio);
  auto r = TableReader::open(path, FileAccess::Pread, failing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Io) << r.message();
  EXPECT_NE(r.message().find("Input/output error (I/O error)"), std::string::npos) << r.message();

  FaultPlan emfile;
  emfile.open_errno = EMFILE;
  FaultEnv no_fds(emfile);
  r = TableReader::open(path, FileAccess::Pread, no_fds);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Io) << r.message();
  EXPECT_NE(r.message().find("Too many open files"), std::string::npos) << r.message();

  FaultPlan short_reads;
  short_reads.short_reads = true;
  FaultEnv cut(short_reads);
  r = TableReader::open(path, FileAccess::Pread, cut);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Corrupt) << r.message();
  EXPECT_NE(r.message().find("ends early"), std::string::npos) << r.message();

  // Memory runs out while the index is read (the header is read 1st, the
  // index 2nd): an I/O error, not corruption, naming memory; the file opens
  // again once memory is there.
  FaultPlan no_memory;
  no_memory.bad_alloc_read = 2;
  FaultEnv starved(no_memory);
  r = TableReader::open(path, FileAccess::Pread, starved);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Io) << r.message();
  EXPECT_NE(r.message().find("out of memory for the index"), std::string::npos) << r.message();
  EXPECT_EQ(starved.reads(), 2);
  starved.set_plan(FaultPlan{});
  EXPECT_TRUE(TableReader::open(path, FileAccess::Pread, starved).ok());

  // Opened through a healthy test Env, then the disk fails: a block read is
  // an I/O error, and reads again once it passes.  (The test Env never
  // maps: FileAccess::Map falls back to reads.)
  FaultEnv later(FaultPlan{});
  r = TableReader::open(path, FileAccess::Map, later);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_FALSE((*r)->mapped());
  later.set_plan(eio);
  std::vector<std::uint16_t> block;
  const Status s = (*r)->read_block(0, block);
  EXPECT_EQ(s.code(), ErrorCode::Io) << s.message();
  later.set_plan(FaultPlan{});
  EXPECT_TRUE((*r)->read_block(0, block).ok());
  EXPECT_TRUE((*r)->verify_file_checksum().ok());
}

// read_small_file: the whole file through the Env, or a coded error
// without the path (the caller names the file).
TEST(Env, ReadSmallFileReadsWholeFilesThroughTheEnv) {
  Dir d;
  { std::ofstream(d.path / "page.html") << "<html>hello</html>"; }
  auto text = read_small_file(default_env(), d.path / "page.html", 1024);
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, "<html>hello</html>");
  auto too_big = read_small_file(default_env(), d.path / "page.html", 5);
  EXPECT_EQ(too_big.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(too_big.message().find("larger than 5 bytes"), std::string::npos) << too_big.message();
  EXPECT_EQ(read_small_file(default_env(), d.path / "none.html", 1024).code(), ErrorCode::NotFound);
  EXPECT_EQ(read_small_file(default_env(), d.path, 1024).code(), ErrorCode::InvalidArgument);  // a folder
  auto empty = read_small_file(default_env(), d.path / "empty", 1024);
  EXPECT_EQ(empty.code(), ErrorCode::NotFound);
  { std::ofstream(d.path / "empty"); }
  empty = read_small_file(default_env(), d.path / "empty", 1024);
  ASSERT_TRUE(empty.ok()) << empty.message();
  EXPECT_TRUE(empty->empty());

  FaultPlan eio;
  eio.read_errno = EIO;
  FaultEnv failing(eio);
  auto failed = read_small_file(failing, d.path / "page.html", 1024);
  EXPECT_EQ(failed.code(), ErrorCode::Io);
  EXPECT_NE(failed.message().find("Input/output error"), std::string::npos) << failed.message();
  FaultPlan cut;
  cut.short_reads = true;
  FaultEnv short_reads(cut);
  EXPECT_EQ(read_small_file(short_reads, d.path / "page.html", 1024).code(), ErrorCode::Corrupt);
}

// tables_root looks for the family subfolder through the Env it is given.
TEST(Env, TablesRootStatsThroughTheEnv) {
  Dir d;
  const Rules& r = rules_of(Variant::Russian);
  ASSERT_TRUE(default_env().make_dirs(d.path / "russian").ok());
  EXPECT_EQ(tables_root(d.path / "russian", r), d.path);
  FaultPlan plan;
  plan.stat_errno = EIO;
  FaultEnv unstatable(plan);
  EXPECT_EQ(tables_root(d.path / "russian", r, unstatable), d.path / "russian");  // not seen as a folder
}

}  // namespace
}  // namespace damka
