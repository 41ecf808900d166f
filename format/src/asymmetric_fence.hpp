// Private to damka_format: an asymmetric memory fence for the block cache's
// epochs (block_cache.hpp).
//
// A reader announces its epoch and then loads a block pointer; an evictor
// clears the pointer and later reads every announcement.  For the reader not
// to miss the clear while the evictor misses the announcement, a full fence
// must separate the store from the load on both sides.  Readers are the hot
// path (every cached probe), evictions are rare and batched, so the fence is
// split unevenly: the reader's half is only a compiler barrier, and the
// evictor's half is the membarrier(2) system call (MEMBARRIER_CMD_PRIVATE_EXPEDITED),
// which runs a full memory barrier on every CPU running a thread of this
// process before it returns.  Where the kernel refuses membarrier (old kernel,
// seccomp filter) both halves are seq_cst fences; under ThreadSanitizer
// (which models neither) see kSeqCstEpochs below.
#pragma once

#include <atomic>

#if defined(__SANITIZE_THREAD__)
#define DAMKA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DAMKA_TSAN 1
#endif
#endif

namespace damka::cache_detail {

#if defined(DAMKA_TSAN)
// ThreadSanitizer models neither fences nor membarrier: under it the cache
// makes the announcement and the pointer accesses seq_cst instead, and both
// halves of the fence do nothing.
inline constexpr bool kSeqCstEpochs = true;
#else
inline constexpr bool kSeqCstEpochs = false;
#endif

class AsymmetricFence {
 public:
  // Registers the process for membarrier once (the first construction; a
  // system call, ~1 us); thread-safe.
  AsymmetricFence();

  // The reader's half: a compiler barrier where membarrier works, else a
  // seq_cst fence.  Costs nothing / ~10 ns.  Thread-safe.
  void light() const {
    if (kSeqCstEpochs) return;
    if (asymmetric_)
      std::atomic_signal_fence(std::memory_order_seq_cst);
    else
      std::atomic_thread_fence(std::memory_order_seq_cst);
  }

  // The evictor's half: the membarrier system call (a few microseconds: it
  // interrupts the CPUs that run this process's threads), else a seq_cst
  // fence.  Call it rarely (the cache batches its reclaims).  False if the
  // system call failed (it cannot once registered): then nothing is ordered
  // and the caller must not free what readers may see.  Thread-safe.
  bool heavy() const;

  // Whether the cheap reader half is in use (for tests and reports).
  bool asymmetric() const { return asymmetric_; }

 private:
  bool asymmetric_ = false;
};

}  // namespace damka::cache_detail
