// Huge-page allocation: see huge_pages.hpp.
#include "damka/huge_pages.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace damka {

namespace {
std::size_t rounded(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
}  // namespace

// Large arrays are mapped, not taken from malloc's heap: freed, they go back
// to the system at once (a heap keeps freed huge pages resident, and they
// fragment it), and a fresh mapping is zero without a pass over it.
void* huge_alloc(std::size_t bytes) {
  if (bytes < kHugeFrom) return ::operator new(bytes);
  const std::size_t size = rounded(bytes);
  void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  // Keep the 2 MiB aligned part of the mapping.
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
  if (aligned > start) ::munmap(raw, aligned - start);
  const std::uintptr_t tail = start + size + kHugePage - (aligned + size);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + size), tail);
  void* p = reinterpret_cast<void*>(aligned);
  // A hint: refused (no transparent huge pages) means 4 KiB pages, as usual.
  (void)::madvise(p, size, MADV_HUGEPAGE);
  return p;
}

void* huge_resize(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  if (p == nullptr || old_bytes < kHugeFrom || new_bytes < kHugeFrom) {
    void* q = huge_alloc(new_bytes);
    huge_free(p, old_bytes);
    return q;
  }
  const std::size_t old_size = rounded(old_bytes), new_size = rounded(new_bytes);
  if (new_size <= old_size) {  // the tail, 2 MiB aligned, back to the system
    if (new_size < old_size) ::munmap(static_cast<char*>(p) + new_size, old_size - new_size);
    return p;
  }
  // Grown in place where the address space after it is free (the new part
  // is the same mapping: it keeps the huge-page hint) ...
  void* q = ::mremap(p, old_size, new_size, 0);
  if (q != MAP_FAILED) return q;
  // ... else the kept pages move to the start of a fresh, aligned array
  // (page tables moved, 2 MiB aligned on both sides: huge pages stay whole).
  void* fresh = huge_alloc(new_bytes);
  q = ::mremap(p, old_size, old_size, MREMAP_MAYMOVE | MREMAP_FIXED, fresh);
  if (q == MAP_FAILED) {  // nothing moved: the fresh array alone
    ::munmap(p, old_size);
    return fresh;
  }
  return q;
}

void huge_release_after(void* p, std::size_t bytes, std::size_t keep) noexcept {
  if (p == nullptr || bytes < kHugeFrom) return;
  const std::size_t from = rounded(keep), size = rounded(bytes);
  if (from < size) (void)::madvise(static_cast<char*>(p) + from, size - from, MADV_DONTNEED);
}

std::size_t huge_resident(const void* p, std::size_t bytes) {
  if (p == nullptr || bytes < kHugeFrom) return bytes;
  const std::size_t size = rounded(bytes), page = 4096;
  std::vector<unsigned char> in(size / page);
  if (::mincore(const_cast<void*>(p), size, in.data()) != 0) return size;  // not known: all of it
  std::size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return std::min(n * page, bytes);
}

void* KeptArrays::take(std::size_t bytes) {
  if (bytes < kHugeFrom) return huge_alloc(bytes);
  const std::size_t size = rounded(bytes);
  // The smallest kept mapping that is large enough: its start.
  auto fit = kept_.end();
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->bytes >= size && (fit == kept_.end() || it->bytes < fit->bytes)) fit = it;
  if (fit != kept_.end()) {
    char* p = fit->p;
    fit->p += size;
    fit->bytes -= size;
    if (fit->bytes == 0) kept_.erase(fit);
    held_ -= size;
    return p;
  }
  // Else a fresh array, the kept pages moved to its start (the largest
  // mapping first: the fewest calls); all of them are 2 MiB aligned, whole
  // huge pages, so they move as such.
  char* fresh = static_cast<char*>(huge_alloc(bytes));
  std::sort(kept_.begin(), kept_.end(), [](const Kept& x, const Kept& y) { return x.bytes > y.bytes; });
  std::size_t at = 0;
  while (!kept_.empty() && at < size) {
    Kept& k = kept_.front();
    const std::size_t n = std::min(k.bytes, size - at);
    if (::mremap(k.p, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, fresh + at) == MAP_FAILED) break;  // the rest fresh
    at += n;
    held_ -= n;
    k.p += n;
    k.bytes -= n;
    if (k.bytes == 0) kept_.erase(kept_.begin());
  }
  return fresh;
}

void KeptArrays::give(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kHugeFrom) {
    huge_free(p, bytes);
    return;
  }
  try {
    kept_.push_back(Kept{static_cast<char*>(p), rounded(bytes)});
  } catch (const std::bad_alloc&) {  // no room to note it: freed
    huge_free(p, bytes);
    return;
  }
  held_ += rounded(bytes);
}

void KeptArrays::release() noexcept {
  for (const Kept& k : kept_) ::munmap(k.p, k.bytes);
  kept_.clear();
  held_ = 0;
}

void huge_free(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kHugeFrom) {
    ::operator delete(p);
    return;
  }
  ::munmap(p, rounded(bytes));
}

}  // namespace damka
