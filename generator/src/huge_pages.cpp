// Huge-page allocation: see huge_pages.hpp.
#include "damka/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

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

void huge_free(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kHugeFrom) {
    ::operator delete(p);
    return;
  }
  ::munmap(p, rounded(bytes));
}

}  // namespace damka
