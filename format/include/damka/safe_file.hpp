// Creating files without writing through links someone planted.
//
// The POSIX Env (env.hpp) creates its temporary files here.
// Every file damka creates goes through create_temp_file(): a fresh name
// "<stem>.tmp.<pid>.<random>" (64 random bits, so nobody can plant a link at
// it in advance) opened with O_CREAT|O_EXCL|O_NOFOLLOW, which never follows a
// symbolic link and never opens an existing file (a planted hard link
// included).  A finished file is renamed over its final name, which replaces
// whatever link was there and never writes through it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "damka/env.hpp"
#include "damka/expected.hpp"

namespace damka {

// A file created by create_temp_file(): its open descriptor (the caller
// closes it) and its path.
struct CreatedFile {
  int fd = -1;
  std::filesystem::path path;
};

// 64 random bits from the kernel (getrandom), reduced below 10^18 so that the
// decimal text fits temp_table_file_pid's pattern.  Cost: one system call.
// Thread-safe.
std::uint64_t random_name_number();

// Creates "<dir>/<stem>.tmp.<pid>.<random>" with O_RDWR|O_CREAT|O_EXCL|
// O_NOFOLLOW|O_CLOEXEC and `mode`, trying a few fresh names when one exists.
// Fails (ErrorCode::Io) naming the path and the system's reason.  Cost: one
// open() (rarely a few).  Thread-safe; the caller owns and closes the fd and
// removes or renames the file.
Expected<CreatedFile> create_temp_file(const std::filesystem::path& dir, std::string_view stem, mode_t mode = 0644);

// Replaces `path` with `bytes` whole: written to a create_temp_file() beside
// it, then renamed over it (a link at `path` is replaced, never written
// through).  On failure nothing changes at `path` and the temporary file is
// removed.  Every file operation goes through `env`.  Cost: one write of
// `bytes`.  Thread-safe for distinct paths.
Status replace_file(const std::filesystem::path& path, std::string_view bytes, mode_t mode = 0644,
                    Env& env = default_env());

// (Making a folder with its parents: Env::make_dirs, env.hpp.)

// True when `path` itself (not what a link points to: lstat) is a regular
// file.  Cleanup code removes only such files.  Cost: one lstat().
bool is_plain_file(const std::filesystem::path& path);

}  // namespace damka
