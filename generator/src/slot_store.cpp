// The engine's store of finished values (slot_store.hpp).
#include "slot_store.hpp"

#include <algorithm>
#include <cassert>

#include "damka/huge_pages.hpp"

namespace damka::engine_detail {

void HugeFree::operator()(std::uint16_t* p) const noexcept { huge_free(p, bytes); }

SlotStore::~SlotStore() {
  file_.reset();
  if (!path_.empty()) (void)env_->remove(path_);
}

Status SlotStore::open(bool spill, const std::filesystem::path& dir, const Material& m, Env& env) {
  env_ = &env;
  if (!spill) {
    // Not filled: flush_level writes every slot once before it is read.
    for (int i = 0; i < passes_; ++i)
      mem_[i] = Array(static_cast<std::uint16_t*>(huge_alloc(slots_ * 2)), HugeFree{slots_ * 2});
    return {};
  }
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
    std::copy(codes, codes + n, mem_[pass].get() + first);
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
    std::copy(mem_[pass].get() + first, mem_[pass].get() + first + n, out.begin());
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
