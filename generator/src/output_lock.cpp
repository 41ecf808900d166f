// The advisory lock of a generate output folder (output_lock.hpp).
#include "damka/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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

std::string read_holder(int fd) {
  char buf[512];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "holder unknown" : s;
}

}  // namespace

std::filesystem::path output_lock_path(const Rules& rules, const std::filesystem::path& dir) {
  return dir / (".damka-generate-" + table_family(rules) + ".lock");
}

Expected<OutputLock> OutputLock::acquire(const Rules& rules, const std::filesystem::path& dir) {
  const std::filesystem::path family = table_dir(dir, rules);
  if (Status made = make_directories(family); !made.ok()) return made.error();
  const std::filesystem::path path = output_lock_path(rules, dir);
  // Never follows a link and never truncates: a symbolic link planted at
  // the lock's name fails the open (O_NOFOLLOW), and a hard link to another
  // file (or anything but a regular file) is refused before a byte is
  // written.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP)
      return Error(path.string() + ": the lock file is a symbolic link; remove it (damka never writes through links)",
                   ErrorCode::Other);
    return Error(path.string() + ": cannot open the lock file: " + std::strerror(err), ErrorCode::Io);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    const bool linked = S_ISREG(st.st_mode) && st.st_nlink > 1;
    ::close(fd);
    return Error(path.string() + (linked ? ": the lock file has other hard links; remove it (damka never writes "
                                           "through links)"
                                         : ": the lock file is not a regular file; remove it"),
                 ErrorCode::Other);
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string msg;
    if (err == EWOULDBLOCK)
      msg = family.string() + " is being written by another damka generate (" + read_holder(fd) +
            "); wait for it to finish, or build into another folder";
    else
      msg = path.string() + ": cannot lock: " + std::strerror(err);
    ::close(fd);
    return Error(msg, err == EWOULDBLOCK ? ErrorCode::Other : ErrorCode::Io);
  }
  // The holder, in a fixed-size record padded with NULs (read_holder strips
  // them): written over the old one, never truncating the file.
  std::string holder = holder_text() + "\n";
  holder.resize(std::max<std::size_t>(holder.size(), kHolderRecord), '\0');
  [[maybe_unused]] const ssize_t w = ::pwrite(fd, holder.data(), holder.size(), 0);
  return OutputLock(fd, family);
}

OutputLock::OutputLock(OutputLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), family_dir_(std::move(other.family_dir_)) {}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    family_dir_ = std::move(other.family_dir_);
  }
  return *this;
}

OutputLock::~OutputLock() {
  // The holder text stays (it is only read while the lock is held).
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

std::vector<std::filesystem::path> OutputLock::remove_temp_files(std::vector<std::string>* failed) const {
  std::vector<std::filesystem::path> removed;
  for (const auto& p : temp_table_files(family_dir_)) {
    if (temp_table_file_pid(p.filename().string()) == ::getpid()) continue;  // this process's own writes
    std::error_code ec;
    if (!is_plain_file(p)) {  // a link or folder of that name: not damka's, left alone
      if (failed) failed->push_back(p.string() + ": not a regular file, left alone");
      continue;
    }
    if (std::filesystem::remove(p, ec) && !ec)
      removed.push_back(p);
    else if (failed)
      failed->push_back(p.string() + ": " + (ec ? ec.message() : std::string("not removed")));
  }
  return removed;
}

Expected<OutputLock> lock_output(const Rules& rules, const std::filesystem::path& dir,
                                 const std::function<void(const std::string&)>& notice) {
  auto lock = OutputLock::acquire(rules, dir);
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
