// The advisory lock of a generate output folder (output_lock.hpp).
#include "damka/output_lock.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <system_error>
#include <utility>

#include "damka/safe_file.hpp"
#include "damka/table_paths.hpp"

namespace damka {
namespace {

// Bytes the holder record takes at the start of the lock file.
constexpr std::size_t kHolderRecord = 256;

// "pid 1234 on host, started 2024-05-01 12:00:00 UTC"
std::string holder_text() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
  char when[64] = "?";
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  if (::gmtime_r(&now, &tm) != nullptr) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return "pid " + std::to_string(::getpid()) + " on " + host + ", started " + when;
}

std::string read_holder(const File& file) {
  char buf[512];
  auto info = file.info();
  const std::size_t n = info ? static_cast<std::size_t>(std::min<std::uint64_t>(info->size, sizeof buf - 1)) : 0;
  std::string s = n > 0 && file.read(0, n, buf).ok() ? std::string(buf, n) : std::string();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "holder unknown" : s;
}

}  // namespace

std::filesystem::path output_lock_path(const Rules& rules, const std::filesystem::path& dir) {
  return dir / (".damka-generate-" + table_family(rules) + ".lock");
}

Expected<OutputLock> OutputLock::acquire(const Rules& rules, const std::filesystem::path& dir, Env& env) {
  const std::filesystem::path family = table_dir(dir, rules);
  if (Status made = env.make_dirs(family); !made.ok()) return made.error();
  const std::filesystem::path path = output_lock_path(rules, dir);
  // Never follows a link and never truncates; a hard link to another file
  // (or anything but a regular file) is refused before a byte is written
  // (Env::open_lock_file).
  auto file = env.open_lock_file(path);
  if (!file) {
    if (file.code() != ErrorCode::Io) return file.error();  // names the path and the problem
    return Error(path.string() + ": cannot open the lock file: " + file.message(), ErrorCode::Io);
  }
  auto locked = (*file)->try_lock();
  if (!locked) return Error(path.string() + ": cannot lock: " + locked.message(), ErrorCode::Io);
  if (!*locked)
    return Error(family.string() + " is being written by another damka generate (" + read_holder(**file) +
                     "); wait for it to finish, or build into another folder",
                 ErrorCode::Other);
  // The holder, in a fixed-size record padded with NULs (read_holder strips
  // them): written over the old one, never truncating the file.
  std::string holder = holder_text() + "\n";
  holder.resize(std::max<std::size_t>(holder.size(), kHolderRecord), '\0');
  [[maybe_unused]] const Status written = (*file)->write(0, holder.data(), holder.size());
  return OutputLock(std::move(*file), family, env);
}

OutputLock::~OutputLock() = default;  // the holder text stays (it is only read while the lock is held)

std::vector<std::filesystem::path> OutputLock::remove_temp_files(std::vector<std::string>* failed) const {
  std::vector<std::filesystem::path> removed;
  for (const auto& p : temp_table_files(family_dir_, *env_)) {
    if (temp_table_file_pid(p.filename().string()) == ::getpid()) continue;  // this process's own writes
    if (!is_plain_file(p)) {  // a link or folder of that name: not damka's, left alone
      if (failed) failed->push_back(p.string() + ": not a regular file, left alone");
      continue;
    }
    if (Status s = env_->remove(p); s.ok())
      removed.push_back(p);
    else if (failed)
      failed->push_back(p.string() + ": " + s.message());
  }
  return removed;
}

Expected<OutputLock> lock_output(const Rules& rules, const std::filesystem::path& dir,
                                 const std::function<void(const std::string&)>& notice, Env& env) {
  auto lock = OutputLock::acquire(rules, dir, env);
  if (!lock) return lock;
  std::vector<std::string> failed;
  const auto removed = lock->remove_temp_files(&failed);
  if (notice) {
    for (const auto& p : removed) notice("removed " + p.string() + " (a temporary file left by a killed run)");
    for (const auto& f : failed) notice("cannot remove a temporary file left by a killed run: " + f);
  }
  return lock;
}

}  // namespace damka
