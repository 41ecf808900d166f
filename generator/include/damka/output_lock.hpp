// One `damka generate` at a time per output folder and table family.
//
// generate() takes an advisory lock (flock) on <dir>/.damka-generate-<family>.lock
// for the whole run, so a second run into the same folder refuses at once
// with a message naming the holder (pid, host, start time) instead of building
// everything a second time.  The lock is released when its holder exits, even
// when it is killed; the lock file itself stays (a small hidden file beside
// the family folders, ignored by every reader).  While holding it, generate() removes the
// temporary files that killed runs left behind (table_paths.hpp,
// temp_table_files) and reports each.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/rules.hpp"

namespace damka {

// <dir>/.damka-generate-<family>.lock
std::filesystem::path output_lock_path(const Rules& rules, const std::filesystem::path& dir);

class OutputLock {
 public:
  // Creates <dir>/<family> if needed and takes its lock without waiting.
  // Fails when another process (or another OutputLock in this one) holds
  // it, naming the holder; or when the folder cannot be created or the lock
  // file opened.  The lock file is opened, locked and written through
  // `env` (Env::open_lock_file: never through a link), which must outlive
  // the lock.  Cost: a few system calls.  Thread-safe.
  static Expected<OutputLock> acquire(const Rules& rules, const std::filesystem::path& dir, Env& env = default_env());

  OutputLock(OutputLock&& other) noexcept = default;
  OutputLock& operator=(OutputLock&& other) noexcept = default;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();  // releases the lock

  const std::filesystem::path& family_dir() const { return family_dir_; }

  // Removes the damka temporary files in the family folder (no other
  // generate can be writing there while the lock is held) and returns the
  // paths removed (through the lock's Env); a file that cannot be removed
  // is left and listed in `failed`.
  std::vector<std::filesystem::path> remove_temp_files(std::vector<std::string>* failed = nullptr) const;

 private:
  OutputLock(std::unique_ptr<File> file, std::filesystem::path family_dir, Env& env)
      : file_(std::move(file)), family_dir_(std::move(family_dir)), env_(&env) {}
  std::unique_ptr<File> file_;  // open and locked; destroying it releases the lock
  std::filesystem::path family_dir_;
  Env* env_ = nullptr;
};

// What generate() calls first: acquire() the lock, then remove_temp_files(),
// telling `notice` (if set) about each file removed or left.
Expected<OutputLock> lock_output(const Rules& rules, const std::filesystem::path& dir,
                                 const std::function<void(const std::string&)>& notice, Env& env = default_env());

}  // namespace damka
