// The file-system seam (leveldb's Env is the model): every table file,
// temporary file and lock file a damka library opens, reads, maps, creates,
// syncs, renames, removes or locks goes through an Env.  default_env() is
// the POSIX one; a caller that wants another (a test that fails the Nth
// write with ENOSPC, kills the process before a rename, cuts reads short)
// passes its own: TableReader::open(..., env), WriteOptions::env,
// BuildOptions::env, GenerateOptions::env, OutputLock::acquire(..., env),
// TablebaseOptions::env, VerifyOptions::env, TableDirOptions::env (the
// statutes' tables and temporary count files), ServeOptions::env,
// write_svgs(..., env), load_rulebook(..., env).  There is no process-wide
// Env to replace: the libraries hold no mutable globals.
//
// Folders too: listing one (scan_table_folder, Tablebase::open,
// materials_with_tables, the stale notes of a job, the rulebooks and the
// web folder a server offers) and making one with its parents (generate's
// output folder, the lock, the SVG pictures of a statute report).  Small
// whole files (a rulebook, a web page) are read with read_small_file().
// Library code (everything but cli/ and tests/) makes no other file-system
// call, but for path arithmetic (links resolved by rulebook_search_path,
// which looks for where the running code lives, and find_web_dir) and the
// private temporary folder of the statutes' counts (mkdtemp).
//
// Errors are coded (expected.hpp) and carry the system's reason as their
// message, without the path (make_dirs excepted), so that each caller names
// the file and what it was doing: NotFound (no such file or folder), Io (the operating system
// failed: ENOSPC, EIO, EMFILE, ...; nothing is known to be wrong with the
// data), Corrupt (a read found the file shorter than asked: it ends early).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "damka/expected.hpp"

namespace damka {

// What fstat/stat say of a file: enough to tell a regular file and to see
// that a file changed (another inode at the path, another size or mtime).
struct FileInfo {
  std::uint64_t device = 0, inode = 0, size = 0, links = 0;
  std::int64_t mtime_ns = 0;
  bool regular = false;
  bool directory = false;
};

// An open file.  Destroying it closes it (unmaps its map, releases its
// lock).  read() and info() are thread-safe; write(), sync() and close()
// are for one thread at a time.
class File {
 public:
  virtual ~File() = default;
  // Exactly n bytes at `offset` into `out` (n = 0: nothing).  Io with the
  // system's reason, or Corrupt ("the file ends early") when it ends first.
  // Cost: one pread (more when interrupted or short).
  virtual Status read(std::uint64_t offset, std::size_t n, void* out) const = 0;
  // Exactly n bytes at `offset`.  Io with the system's reason.
  virtual Status write(std::uint64_t offset, const void* data, std::size_t n) = 0;
  // fstat.  Io with the system's reason.
  virtual Expected<FileInfo> info() const = 0;
  // Flushes the file's data to the disk (fsync).
  virtual Status sync() = 0;
  // Closes now, reporting what close() says; the file is unusable after.
  virtual Status close() = 0;
  // The first `size` bytes mapped read-only for random access, valid while
  // this File lives, or null when this Env cannot map (the caller reads
  // instead).  At most one map per file.
  virtual const unsigned char* map(std::uint64_t size) {
    (void)size;
    return nullptr;
  }
  // An exclusive advisory lock (flock), without waiting: true when taken,
  // false when another open file holds it, Io on failure.  Released when
  // the File is destroyed.
  virtual Expected<bool> try_lock() = 0;
};

// A temporary file created by Env::create_temp, open for reading and writing.
struct TempFile {
  std::unique_ptr<File> file;
  std::filesystem::path path;
};

class Env {
 public:
  virtual ~Env() = default;

  // Opens an existing file for reading without blocking on a FIFO or device
  // (the caller refuses what info() says is not a regular file before it
  // reads).  NotFound when the path or a folder of it does not exist, else
  // Io.
  virtual Expected<std::unique_ptr<File>> open_read(const std::filesystem::path& path) = 0;
  // Creates "<dir>/<stem>.tmp.<pid>.<random>" (safe_file.hpp: O_EXCL, never
  // through a link) with `mode`.  Io naming the path and the reason.
  virtual Expected<TempFile> create_temp(const std::filesystem::path& dir, std::string_view stem,
                                         unsigned mode = 0644) = 0;
  // Opens (creating) a lock file for reading and writing, never following
  // a link and never truncating; refuses a symbolic link, a file with other
  // hard links and anything but a regular file (ErrorCode::Other, the
  // message naming `path`).  Io with the system's reason otherwise.
  virtual Expected<std::unique_ptr<File>> open_lock_file(const std::filesystem::path& path) = 0;
  // rename(2): replaces `to` (a link there included, never written through).
  virtual Status rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  // unlink(2), or rmdir(2) for an (empty) folder.  NotFound when there is
  // no such file.
  virtual Status remove(const std::filesystem::path& path) = 0;
  // stat(2) of a path (following links).  NotFound or Io.
  virtual Expected<FileInfo> stat(const std::filesystem::path& path) = 0;
  // The names of a folder's entries ("." and ".." left out), in no
  // particular order.  NotFound when there is no such folder (or it, or a
  // part of its path, is not a folder), Io otherwise (permission denied, a
  // read of the folder failing), with the system's reason.
  // Cost: one read of the folder.
  virtual Expected<std::vector<std::string>> list_dir(const std::filesystem::path& dir) = 0;
  // Makes `dir` and every missing folder above it (mkdir -p); nothing when
  // it is a folder already.  Io with a message naming the real problem and
  // `dir`: a loop of symbolic links, a file where a folder should be (not a
  // bare "File exists"), or the system's reason.  Cost: a few stat and mkdir calls.
  virtual Status make_dirs(const std::filesystem::path& dir) = 0;
};

// The POSIX Env (open/pread/pwrite/mmap/fsync/rename/flock).  Thread-safe;
// lives for the whole program.
Env& default_env();

// `env`, or default_env() when null (for options structs whose Env pointer
// defaults to null).
inline Env& env_or_default(Env* env) { return env != nullptr ? *env : default_env(); }

// The whole of a small regular file (a rulebook, a web page, a note),
// read through `env`.  NotFound or Io as open_read and File::read say
// (the system's reason, without the path: the caller names the file);
// InvalidArgument when it is not a regular file or holds more than
// `max_bytes` bytes.  Cost: one open, one fstat and one read of the file.
// Thread-safe when `env` is.
Expected<std::string> read_small_file(Env& env, const std::filesystem::path& path, std::uint64_t max_bytes);

}  // namespace damka
