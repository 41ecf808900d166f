// Huge-page allocation: see huge_pages.hpp.
#include "damka/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdlib>

namespace damka {

void* huge_alloc(std::size_t bytes) {
  if (bytes < kHugeFrom) return ::operator new(bytes);
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  // A hint: refused (no transparent huge pages) means 4 KiB pages, as usual.
  (void)::madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

void huge_free(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kHugeFrom) {
    ::operator delete(p);
    return;
  }
  std::free(p);
}

}  // namespace damka
