// Large arrays on transparent huge pages.
//
// The generator's arrays (a level's values, a unit's move graph, the
// finished store, tables kept in memory) are gigabytes read at random.  On
// 4 KiB pages every first touch is a page fault and most random reads miss
// the TLB; where the kernel offers transparent huge pages only on request
// (`madvise`, the default of many distributions), an array asks for 2 MiB
// pages here.  Russian <= 5 pieces, 2 threads: about 5% less wall time
// (the same as the kernel's `always` setting).  Nothing changes where the
// kernel has them off, and no value depends on it.
//
// Cost: allocations of at least kHugeFrom bytes are rounded up to 2 MiB;
// smaller ones go to operator new.  Thread-safe (as malloc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace damka {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
inline constexpr std::size_t kHugeFrom = std::size_t{4} << 20;

// Memory for `bytes` bytes: at least kHugeFrom bytes are 2 MiB aligned,
// madvise(MADV_HUGEPAGE)d before any page is touched.  Throws
// std::bad_alloc.  Release with huge_free(p, bytes).
void* huge_alloc(std::size_t bytes);
void huge_free(void* p, std::size_t bytes) noexcept;

// Resizes a huge_alloc() array of `old_bytes` to `new_bytes`, keeping
// the pages it has (moved, not copied: the first min(old, new) bytes stay)
// and mapping fresh ones beyond them; pages past `new_bytes` go back to
// the system.  Either size below kHugeFrom: a fresh array (nothing kept).
// Throws std::bad_alloc (the old array is then still valid).  Cost: a few
// system calls.
void* huge_resize(void* p, std::size_t old_bytes, std::size_t new_bytes);

// Gives the pages of a huge_alloc() array of `bytes` bytes past its first
// `keep` bytes (rounded up to 2 MiB, so no huge page is split) back to the
// system; the array stays valid, those pages reading as zero when next
// touched (a page fault each, as fresh memory).  Arrays below kHugeFrom:
// nothing.  Cost: one system call.
void huge_release_after(void* p, std::size_t bytes, std::size_t keep) noexcept;
// The bytes of a huge_alloc() array of `bytes` bytes that sit in memory
// (mincore); `bytes` for an array below kHugeFrom.  Cost: one system call
// and a byte per 4 KiB page.
std::size_t huge_resident(const void* p, std::size_t bytes);

// Huge arrays kept from one use for the next: a build's in-memory store,
// given back here when the material is done, is what the next material's
// store takes (BuildOptions::kept), so that the pages it has already
// touched need no new page fault, whose zeroing by the kernel cost about
// a second of CPU per GB on the virtual machines measured (2% of Russian
// `-n 6`).  take() resizes a kept array to what is asked (the pages past
// it go back to the system), so what is held beyond the new use is never
// more than the previous use held, and only until the next take();
// release() gives everything back.  Not thread-safe: one building thread.
class KeptArrays {
 public:
  KeptArrays() = default;
  ~KeptArrays() { release(); }
  KeptArrays(const KeptArrays&) = delete;
  KeptArrays& operator=(const KeptArrays&) = delete;

  // An array of `bytes` bytes (huge_alloc's): kept array `slot` resized
  // (huge_resize), or a fresh one when none is kept there.  Its contents
  // are unspecified.  Throws std::bad_alloc.
  void* take(std::size_t slot, std::size_t bytes);
  // Keeps `p` (huge_alloc's, of `bytes` bytes) in `slot`; one already
  // there is freed.
  void give(std::size_t slot, void* p, std::size_t bytes) noexcept;
  // Frees every kept array.
  void release() noexcept;
  // Bytes held (as huge_alloc rounds them).
  std::size_t bytes() const;

  static constexpr std::size_t kSlots = 4;

 private:
  struct Kept {
    void* p = nullptr;
    std::size_t bytes = 0;
  };
  Kept kept_[kSlots];
};

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  constexpr HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(huge_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { huge_free(p, n * sizeof(T)); }
  // Elements a vector adds without a value (resize(n), BigVector(n)) are
  // default-initialised: for the arrays' plain integers, not written at
  // all, as with `new T[n]`.  The engine's arrays are written whole before
  // they are read, so the zeroing that value-initialisation did was a
  // wasted pass, one thread filling the gigabyte store of resolved values
  // (BuildOptions::resolved) or a loaded table before the threads wrote
  // them (and its page faults with it).  resize(n, value) and assign()
  // still fill.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U>
  friend constexpr bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) noexcept {
    return true;
  }
};

// A std::vector whose large buffers sit on huge pages.
template <class T>
using BigVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace damka
