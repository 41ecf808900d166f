// The fault-injecting test Env (fault_env.hpp).
#include "fault_env.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <new>

namespace damka::testing {
namespace {

bool is_table_name(const std::filesystem::path& p) {
  const std::string e = p.extension().string();
  return e == ".wdl" || e == ".dtw" || e == ".dtc";
}

class FaultFile final : public File {
 public:
  FaultFile(std::unique_ptr<File> base, FaultEnv& env, bool readable, bool table_temp)
      : base_(std::move(base)), env_(env), readable_(readable), table_temp_(table_temp) {}

  Status read(std::uint64_t offset, std::size_t n, void* out) const override {
    if (readable_ && n > 0) {
      if (const int number = env_.count_read(); env_.plan().bad_alloc_read > 0 && number >= env_.plan().bad_alloc_read)
        throw std::bad_alloc();
      if (env_.plan().read_errno != 0) return Error(std::strerror(env_.plan().read_errno), ErrorCode::Io);
      if (env_.plan().short_reads) return Error("the file ends early", ErrorCode::Corrupt);
    }
    return base_->read(offset, n, out);
  }
  Status write(std::uint64_t offset, const void* data, std::size_t n) override {
    if (table_temp_ && offset == 0 && env_.kills_at_table_header()) ::kill(::getpid(), SIGKILL);
    const int number = env_.count_write();
    if (env_.plan().fail_write > 0 && number >= env_.plan().fail_write)
      return Error(std::strerror(env_.plan().write_errno), ErrorCode::Io);
    return base_->write(offset, data, n);
  }
  Expected<FileInfo> info() const override { return base_->info(); }
  Status sync() override { return base_->sync(); }
  Status close() override { return base_->close(); }
  // No map: a faulty file is always read through read().
  Expected<bool> try_lock() override { return base_->try_lock(); }

 private:
  std::unique_ptr<File> base_;
  FaultEnv& env_;
  bool readable_, table_temp_;
};

}  // namespace

std::optional<FaultPlan> fault_plan_named(const std::string& name) {
  FaultPlan p;
  const auto number_after = [&](const std::string& prefix, int& out) {
    if (name.rfind(prefix, 0) != 0) return false;
    try {
      out = std::stoi(name.substr(prefix.size()));
    } catch (...) {
      return false;
    }
    return out > 0;
  };
  if (name == "kill-mid-write") p.kill_at_table_header = true;
  else if (name == "kill-before-rename") p.kill_before_table_rename = true;
  else if (number_after("kill-mid-write-", p.kill_at_table)) p.kill_at_table_header = true;
  else if (number_after("kill-before-rename-", p.kill_at_table)) p.kill_before_table_rename = true;
  else if (name == "eio-read") p.read_errno = EIO;
  else if (name == "short-read") p.short_reads = true;
  else if (name == "eio-list") p.list_errno = EIO;
  else if (name == "eacces-mkdir") p.mkdir_errno = EACCES;
  else if (number_after("enospc-write-", p.fail_write)) p.write_errno = ENOSPC;
  else if (number_after("eio-write-", p.fail_write)) p.write_errno = EIO;
  else return std::nullopt;
  return p;
}

Expected<std::unique_ptr<File>> FaultEnv::open_read(const std::filesystem::path& path) {
  if (plan_.open_errno != 0) return Error(std::strerror(plan_.open_errno), ErrorCode::Io);
  auto f = base_.open_read(path);
  if (!f) return f.error();
  return std::unique_ptr<File>(new FaultFile(std::move(*f), *this, true, false));
}

Expected<FileInfo> FaultEnv::stat(const std::filesystem::path& path) {
  if (plan_.stat_errno != 0) return Error(std::strerror(plan_.stat_errno), ErrorCode::Io);
  return base_.stat(path);
}

Expected<std::vector<std::string>> FaultEnv::list_dir(const std::filesystem::path& dir) {
  if (plan_.list_errno != 0) return Error(std::strerror(plan_.list_errno), ErrorCode::Io);
  return base_.list_dir(dir);
}

Status FaultEnv::make_dirs(const std::filesystem::path& dir) {
  if (plan_.mkdir_errno != 0) {
    auto info = base_.stat(dir);
    if (info && info->directory) return {};
    return Error(dir.string() + ": cannot create directory: " + std::strerror(plan_.mkdir_errno), ErrorCode::Io);
  }
  return base_.make_dirs(dir);
}

Expected<TempFile> FaultEnv::create_temp(const std::filesystem::path& dir, std::string_view stem, unsigned mode) {
  auto t = base_.create_temp(dir, stem, mode);
  if (!t) return t.error();
  const bool table = is_table_name(std::filesystem::path(std::string(stem)));
  return TempFile{std::unique_ptr<File>(new FaultFile(std::move(t->file), *this, false, table)), t->path};
}

Expected<std::unique_ptr<File>> FaultEnv::open_lock_file(const std::filesystem::path& path) {
  auto f = base_.open_lock_file(path);
  if (!f) return f.error();
  return std::unique_ptr<File>(new FaultFile(std::move(*f), *this, false, false));
}

Status FaultEnv::rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (plan_.kill_before_table_rename && is_table_name(to) && ++table_renames_ >= plan_.kill_at_table)
    ::kill(::getpid(), SIGKILL);
  return base_.rename(from, to);
}

}  // namespace damka::testing
