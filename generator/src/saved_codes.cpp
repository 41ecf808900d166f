// SavedCodes: see saved_codes.hpp.
#include "saved_codes.hpp"

#include <algorithm>
#include <new>
#include <string>

namespace damka {
namespace {
// Reads and writes go in pieces of this many bytes (a few system calls a
// gigabyte, nothing held beside the codes).
constexpr std::uint64_t kPiece = std::uint64_t{64} << 20;
}  // namespace

SavedCodes::~SavedCodes() {
  for (auto& [m, s] : files_) remove(s);
}

void SavedCodes::remove(Saved& s) {
  s.file.reset();
  (void)env_->remove(s.path);
}

Status SavedCodes::save(const Material& m, const BigVector<std::uint16_t>& codes) {
  if (has(m)) return {};
  auto created = env_->create_temp(dir_, m.name() + ".codes", 0600);
  if (!created) return Error(m.name() + ": cannot save its codes: " + created.message(), ErrorCode::Io);
  Saved s{std::move(created->file), created->path, codes.size()};
  const auto* bytes = reinterpret_cast<const unsigned char*>(codes.data());
  const std::uint64_t total = codes.size() * sizeof(std::uint16_t);
  for (std::uint64_t at = 0; at < total; at += kPiece)
    if (Status w = s.file->write(at, bytes + at, static_cast<std::size_t>(std::min(kPiece, total - at))); !w.ok()) {
      remove(s);
      return Error(s.path.string() + ": cannot write: " + w.message(), ErrorCode::Io);
    }
  files_.emplace(m, std::move(s));
  return {};
}

Expected<ResidentTables::Codes> SavedCodes::load(const Material& m, KeptArrays* pool) const {
  const auto it = files_.find(m);
  if (it == files_.end()) return Error(m.name() + ": no saved codes", ErrorCode::NotFound);
  const Saved& s = it->second;
  std::shared_ptr<BigVector<std::uint16_t>> codes;
  try {
    codes = std::make_shared<BigVector<std::uint16_t>>(s.slots, HugePageAllocator<std::uint16_t>(pool));
  } catch (const std::bad_alloc&) {
    return Error(m.name() + ": out of memory for its saved codes", ErrorCode::Io);
  }
  auto* bytes = reinterpret_cast<unsigned char*>(codes->data());
  const std::uint64_t total = s.slots * sizeof(std::uint16_t);
  for (std::uint64_t at = 0; at < total; at += kPiece)
    if (Status r = s.file->read(at, static_cast<std::size_t>(std::min(kPiece, total - at)), bytes + at); !r.ok())
      return Error(s.path.string() + ": cannot read back: " + r.message(), ErrorCode::Io);
  return ResidentTables::Codes(std::move(codes));
}

void SavedCodes::forget_unneeded(ResidentTables& resident, std::size_t from) {
  for (auto it = files_.begin(); it != files_.end();) {
    if (resident.needed_from(from, it->first)) {
      ++it;
      continue;
    }
    resident.unsave(it->first);
    remove(it->second);
    it = files_.erase(it);
  }
}

}  // namespace damka
