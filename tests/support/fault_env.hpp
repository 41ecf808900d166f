// A test Env (damka/env.hpp) that injects faults into the file operations
// of the code under test: the Nth write fails (ENOSPC, EIO, ...), reads fail,
// end early or run out of memory (std::bad_alloc), opens, stats, folder listings or the making of folders fail, and
// the process kills itself (SIGKILL) at the write of a table file's header
// or instead of renaming a finished table into place.  Everything else goes to the wrapped Env.  Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "damka/env.hpp"

namespace damka::testing {

struct FaultPlan {
  // Write number `fail_write` (from 1, every File::write of every file this
  // Env opened or created counted) and every later one fail with
  // `write_errno`; 0: writes succeed.
  int fail_write = 0;
  int write_errno = 28;  // ENOSPC
  // Every read of a file opened by open_read fails with this errno (Io);
  // 0: reads succeed.
  int read_errno = 0;
  // Every read of a file opened by open_read ends early (a short read:
  // File::read's Corrupt "ends early").
  bool short_reads = false;
  // Read number `bad_alloc_read` (from 1, every read of every file opened
  // by open_read counted) and every later one throw std::bad_alloc, as an
  // allocation made for it would when memory runs out; 0: never.
  int bad_alloc_read = 0;
  // open_read fails with this errno; 0: opens succeed.
  int open_errno = 0;
  // stat fails with this errno (Io); 0: stats succeed.
  int stat_errno = 0;
  // list_dir fails with this errno (Io); 0: listings succeed.
  int list_errno = 0;
  // make_dirs fails with this errno (Io) when it would have to make a
  // folder (an existing folder is still fine); 0: it succeeds.
  int mkdir_errno = 0;
  // SIGKILL at the write of a table file's header: the first write at
  // offset 0 to a temporary file of a table (<material>.<wdl|dtw|dtc>.tmp.*),
  // after its blocks are written ("kill-mid-write").
  bool kill_at_table_header = false;
  // SIGKILL instead of renaming a finished temporary file to a table name
  // ("kill-before-rename").
  bool kill_before_table_rename = false;
  // Which table header write or table rename kills (from 1; those before it
  // go through): "kill-mid-write-<n>", "kill-before-rename-<n>".
  int kill_at_table = 1;
};

// The plan a DAMKA_TEST_FAULT name stands for: "kill-mid-write",
// "kill-before-rename" (also with "-<n>": at the n-th table),
// "enospc-write-<n>", "eio-write-<n>", "eio-read",
// "short-read", "eio-list", "eacces-mkdir"; nullopt for another name.
std::optional<FaultPlan> fault_plan_named(const std::string& name);

class FaultEnv final : public Env {
 public:
  explicit FaultEnv(FaultPlan plan, Env& base = default_env()) : plan_(plan), base_(base) {}

  Expected<std::unique_ptr<File>> open_read(const std::filesystem::path& path) override;
  Expected<TempFile> create_temp(const std::filesystem::path& dir, std::string_view stem, unsigned mode) override;
  Expected<std::unique_ptr<File>> open_lock_file(const std::filesystem::path& path) override;
  Status rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  Status remove(const std::filesystem::path& path) override { return base_.remove(path); }
  Expected<FileInfo> stat(const std::filesystem::path& path) override;
  Expected<std::vector<std::string>> list_dir(const std::filesystem::path& dir) override;
  Status make_dirs(const std::filesystem::path& dir) override;

  // Writes attempted so far (failed ones included).
  int writes() const { return writes_.load(); }
  // Counts a write: its number, from 1.
  int count_write() { return ++writes_; }
  // Counts a read of a file opened by open_read: its number, from 1.
  int count_read() { return ++reads_; }
  // Reads of files opened by open_read so far (those that threw included).
  int reads() const { return reads_.load(); }
  // Counts a table's header write: whether the plan kills at it.
  bool kills_at_table_header() { return plan_.kill_at_table_header && ++table_headers_ >= plan_.kill_at_table; }
  const FaultPlan& plan() const { return plan_; }
  // Another plan from now on (the write count goes on).  Not while another
  // thread uses this Env.
  void set_plan(const FaultPlan& plan) { plan_ = plan; }

 private:
  FaultPlan plan_;
  Env& base_;
  std::atomic<int> writes_{0}, reads_{0};
  std::atomic<int> table_headers_{0}, table_renames_{0};
};

}  // namespace damka::testing
