// The POSIX Env (env.hpp): file descriptors, pread/pwrite, mmap, flock.
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "damka/env.hpp"
#include "damka/safe_file.hpp"

namespace damka {
namespace {

Error errno_error(int err) {
  return Error(std::strerror(err), err == ENOENT || err == ENOTDIR ? ErrorCode::NotFound : ErrorCode::Io);
}

FileInfo to_info(const struct stat& st) {
  FileInfo i;
  i.device = static_cast<std::uint64_t>(st.st_dev);
  i.inode = static_cast<std::uint64_t>(st.st_ino);
  i.size = static_cast<std::uint64_t>(st.st_size);
  i.links = static_cast<std::uint64_t>(st.st_nlink);
  i.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  i.regular = S_ISREG(st.st_mode);
  i.directory = S_ISDIR(st.st_mode);
  return i;
}

class PosixFile final : public File {
 public:
  explicit PosixFile(int fd) : fd_(fd) {}
  ~PosixFile() override {
    if (map_ != nullptr) ::munmap(map_, map_size_);
    if (fd_ >= 0) ::close(fd_);
  }

  Status read(std::uint64_t offset, std::size_t n, void* out) const override {
    auto* p = static_cast<unsigned char*>(out);
    while (n > 0) {
      const ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return Error(std::strerror(errno), ErrorCode::Io);
      if (r == 0) return Error("the file ends early", ErrorCode::Corrupt);
      p += r;
      n -= static_cast<std::size_t>(r);
      offset += static_cast<std::uint64_t>(r);
    }
    return {};
  }

  Status write(std::uint64_t offset, const void* data, std::size_t n) override {
    auto* p = static_cast<const unsigned char*>(data);
    while (n > 0) {
      const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return Error(std::strerror(w < 0 ? errno : EIO), ErrorCode::Io);
      p += w;
      n -= static_cast<std::size_t>(w);
      offset += static_cast<std::uint64_t>(w);
    }
    return {};
  }

  Expected<FileInfo> info() const override {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return Error(std::strerror(errno), ErrorCode::Io);
    return to_info(st);
  }

  Status sync() override {
    if (::fsync(fd_) != 0) return Error(std::strerror(errno), ErrorCode::Io);
    return {};
  }

  Status close() override {
    const int fd = fd_;
    fd_ = -1;
    if (fd < 0) return Error(std::strerror(EBADF), ErrorCode::Io);
    if (::close(fd) != 0) return Error(std::strerror(errno), ErrorCode::Io);
    return {};
  }

  const unsigned char* map(std::uint64_t size) override {
    if (map_ != nullptr || fd_ < 0 || size == 0) return nullptr;
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd_, 0);
    if (m == MAP_FAILED) return nullptr;
    ::madvise(m, size, MADV_RANDOM);  // probes touch scattered blocks: no read-ahead
    map_ = m;
    map_size_ = size;
    return static_cast<const unsigned char*>(m);
  }

  Expected<bool> try_lock() override {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno == EWOULDBLOCK) return false;
    return Error(std::strerror(errno), ErrorCode::Io);
  }

 private:
  int fd_ = -1;
  void* map_ = nullptr;
  std::uint64_t map_size_ = 0;
};

class PosixEnv final : public Env {
 public:
  Expected<std::unique_ptr<File>> open_read(const std::filesystem::path& path) override {
    // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer;
    // the caller checks the file type, and regular files lose the flag.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return errno_error(errno);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
      if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return std::unique_ptr<File>(new PosixFile(fd));
  }

  Expected<TempFile> create_temp(const std::filesystem::path& dir, std::string_view stem, unsigned mode) override {
    auto created = create_temp_file(dir, stem, static_cast<mode_t>(mode));
    if (!created) return created.error();
    return TempFile{std::unique_ptr<File>(new PosixFile(created->fd)), created->path};
  }

  Expected<std::unique_ptr<File>> open_lock_file(const std::filesystem::path& path) override {
    // Never follows a link and never truncates: a symbolic link planted at
    // the name fails the open (O_NOFOLLOW), and a hard link to another file
    // (or anything but a regular file) is refused before a byte is written.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
    if (fd < 0) {
      const int err = errno;
      if (err == ELOOP)
        return Error(path.string() + ": the lock file is a symbolic link; remove it (damka never writes through links)",
                     ErrorCode::Other);
      return Error(std::strerror(err), ErrorCode::Io);
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
    return std::unique_ptr<File>(new PosixFile(fd));
  }

  Status rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return errno_error(errno);
    return {};
  }

  Status remove(const std::filesystem::path& path) override {
    if (::unlink(path.c_str()) == 0) return {};
    const int e = errno;
    if (e == EISDIR && ::rmdir(path.c_str()) == 0) return {};  // an empty folder
    return errno_error(e);
  }

  Expected<FileInfo> stat(const std::filesystem::path& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno_error(errno);
    return to_info(st);
  }

  Expected<std::vector<std::string>> list_dir(const std::filesystem::path& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return errno_error(errno);
    std::vector<std::string> names;
    for (;;) {
      errno = 0;
      const dirent* e = ::readdir(d);
      if (e == nullptr) break;
      const std::string_view name = e->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    const int err = errno;
    ::closedir(d);
    if (err != 0) return Error(std::strerror(err), ErrorCode::Io);
    return names;
  }

  Status make_dirs(const std::filesystem::path& dir) override {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!ec) return {};
    // Which component is the problem: walk down from the top.
    std::filesystem::path at;
    for (const auto& part : dir) {
      at /= part;
      struct stat st {};
      if (::stat(at.c_str(), &st) != 0) {
        if (errno == ELOOP)
          return Error(at.string() + ": a loop of symbolic links (cannot create " + dir.string() + ")", ErrorCode::Io);
        if (errno == ENOENT) break;
        continue;
      }
      if (!S_ISDIR(st.st_mode))
        return Error(at.string() + ": not a directory (cannot create " + dir.string() + " inside it)", ErrorCode::Io);
    }
    return Error(dir.string() + ": cannot create directory: " + ec.message(), ErrorCode::Io);
  }
};

}  // namespace

Env& default_env() {
  static PosixEnv env;  // stateless
  return env;
}

}  // namespace damka
