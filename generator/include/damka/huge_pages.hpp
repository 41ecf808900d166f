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

// Huge arrays' pages kept from one use for the next: a build's in-memory
// store, given back here when the material is done, and the finished tables
// held in memory for later materials (ResidentTables), given back when they
// are dropped, are what the next material's store and its kept codes
// (BuildOptions::resolved) are made of, so that pages already touched need
// no new page fault.  The kernel zeroed a fresh page at about a second of
// CPU per GB on the virtual machines measured, and took about 2.4 s a GB
// where the host had taken the page back (as it does with pages free for a
// few seconds).  take() makes an array of kept pages, moved (page tables,
// not a copy) to the start of one mapping, and fresh pages beyond them;
// what is held beyond the arrays taken goes back with release(), which the
// engine calls once its store and kept codes are made, so that what is held
// beyond a build's plan is only ever what the last build and the dropped
// tables held, between two materials.
// Not thread-safe: one building thread gives and takes (and grows or frees
// the vectors of a HugePageAllocator with a pool).
class KeptArrays {
 public:
  KeptArrays() = default;
  ~KeptArrays() { release(); }
  KeptArrays(const KeptArrays&) = delete;
  KeptArrays& operator=(const KeptArrays&) = delete;

  // An array of `bytes` bytes (huge_alloc's: huge_free or give() it): the
  // start of the smallest kept mapping that is large enough (the rest of it
  // stays kept), else the kept pages moved to the start of a fresh array,
  // the largest mapping first.  Its contents are unspecified.  An array
  // below kHugeFrom is a fresh one.  Throws std::bad_alloc.  Cost: a system
  // call per kept mapping used.
  void* take(std::size_t bytes);
  // Keeps the pages of `p` (huge_alloc's, of `bytes` bytes); an array below
  // kHugeFrom is freed.
  void give(void* p, std::size_t bytes) noexcept;
  // Frees every kept page.
  void release() noexcept;
  // Bytes held (as huge_alloc rounds them).
  std::size_t bytes() const { return held_; }

 private:
  struct Kept {
    char* p = nullptr;
    std::size_t bytes = 0;  // a multiple of kHugePage
  };
  std::vector<Kept> kept_;
  std::size_t held_ = 0;
};

// With a pool (a KeptArrays, which must outlive every vector that uses it
// and whose one thread alone grows or frees them), a vector's large buffers
// are taken from it and given back to it; without one (the default), they
// are mapped and unmapped.  The pool goes with a vector's contents when it
// is moved, swapped or assigned.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  using propagate_on_container_copy_assignment = std::true_type;
  using is_always_equal = std::false_type;
  KeptArrays* pool = nullptr;
  HugePageAllocator() = default;
  explicit HugePageAllocator(KeptArrays* p) noexcept : pool(p) {}
  template <class U>
  constexpr HugePageAllocator(const HugePageAllocator<U>& o) noexcept : pool(o.pool) {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(pool != nullptr ? pool->take(n * sizeof(T)) : huge_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (pool != nullptr)
      pool->give(p, n * sizeof(T));
    else
      huge_free(p, n * sizeof(T));
  }
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
  friend constexpr bool operator==(const HugePageAllocator& a, const HugePageAllocator<U>& b) noexcept {
    return a.pool == b.pool;
  }
};

// A std::vector whose large buffers sit on huge pages.
template <class T>
using BigVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace damka
