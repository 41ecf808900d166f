// Creating files without following planted links (safe_file.hpp).
#include "damka/safe_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace damka {

std::uint64_t random_name_number() {
  std::uint64_t v = 0;
  auto* p = reinterpret_cast<unsigned char*>(&v);
  std::size_t got = 0;
  while (got < sizeof v) {
    const ssize_t n = ::getrandom(p + got, sizeof v - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got < sizeof v) {
    // No kernel randomness (seccomp, very old kernel): O_EXCL still refuses
    // any planted name, this only makes a name less unpredictable.
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    v ^= static_cast<std::uint64_t>(ts.tv_nsec) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(ts.tv_sec);
  }
  return v % 1000000000000000000ull;
}

Expected<CreatedFile> create_temp_file(const std::filesystem::path& dir, std::string_view stem, mode_t mode) {
  int err = 0;
  std::filesystem::path path;
  for (int attempt = 0; attempt < 8; ++attempt) {
    path = dir / (std::string(stem) + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(random_name_number()));
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) return CreatedFile{fd, path};
    err = errno;
    if (err != EEXIST) break;
  }
  return Error("cannot create " + path.string() + ": " + std::strerror(err), ErrorCode::Io);
}

Status replace_file(const std::filesystem::path& path, std::string_view bytes, mode_t mode, Env& env) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  auto f = env.create_temp(dir, path.filename().string(), mode);
  if (!f) return f.error();
  Status s = f->file->write(0, bytes.data(), bytes.size());
  if (Status c = f->file->close(); s.ok()) s = c;
  if (s.ok()) s = env.rename(f->path, path);
  if (!s.ok()) {
    (void)env.remove(f->path);
    return Error("cannot write " + path.string() + ": " + s.message(), ErrorCode::Io);
  }
  return {};
}

bool is_plain_file(const std::filesystem::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace damka
