// The engine's store of finished values (slot_store.hpp).
#include "slot_store.hpp"

#include <algorithm>
#include <cassert>

#include "damka/huge_pages.hpp"

namespace damka::engine_detail {

SlotStore::~SlotStore() {
  for (int i = 0; i < passes_; ++i) {
    if (mem_[i] == nullptr) continue;
    if (kept_ != nullptr)
      kept_->give(mem_[i], slots_ * 2);
    else
      huge_free(mem_[i], slots_ * 2);
  }
  file_.reset();
  if (!path_.empty()) (void)env_->remove(path_);
}

Status SlotStore::open(bool spill, const std::filesystem::path& dir, const Material& m, Env& env, KeptArrays* kept) {
  env_ = &env;
  if (!spill) {
    // Not filled: flush_level writes every slot once before it is read.
    kept_ = kept;
    for (int i = 0; i < passes_; ++i)
      mem_[i] = static_cast<std::uint16_t*>(kept != nullptr ? kept->take(slots_ * 2) : huge_alloc(slots_ * 2));
    return {};
  }
  if (kept != nullptr) kept->release();
  // A fresh, unpredictable name created O_EXCL|O_NOFOLLOW (safe_file.hpp).
  auto created = env.create_temp(dir, m.name() + ".levels", 0600);
  if (!created) return Error("cannot create the temporary level file: " + created.message(), ErrorCode::Io);
  file_ = std::move(created->file);
  path_ = created->path;
  return {};
}

Status SlotStore::write(int pass, std::uint64_t first, const std::uint16_t* codes, std::uint64_t n) {
  assert(first + n <= slots_);
  if (!file_) {
    std::copy(codes, codes + n, mem_[pass] + first);
    return {};
  }
  const std::uint64_t at = (static_cast<std::uint64_t>(pass) * slots_ + first) * 2;
  if (Status s = file_->write(at, codes, n * 2); !s.ok())
    return Error(path_.string() + ": cannot write: " + s.message(), s.code());
  return {};
}

Status SlotStore::read(int pass, std::uint64_t first, std::uint64_t n, std::vector<std::uint16_t>& out) {
  assert(first + n <= slots_);
  out.resize(n);
  if (!file_) {
    std::copy(mem_[pass] + first, mem_[pass] + first + n, out.begin());
    return {};
  }
  const std::uint64_t at = (static_cast<std::uint64_t>(pass) * slots_ + first) * 2;
  if (Status s = file_->read(at, n * 2, out.data()); !s.ok())
    return Error(path_.string() + ": cannot read back: " +
                     (s.code() == ErrorCode::Corrupt ? std::string("short file") : s.message()),
                 s.code() == ErrorCode::Corrupt ? ErrorCode::Io : s.code());
  return {};
}

}  // namespace damka::engine_detail
