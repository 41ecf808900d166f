// The asymmetric fence: membarrier(2) where the kernel offers it
// (asymmetric_fence.hpp).
#include "asymmetric_fence.hpp"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace damka::cache_detail {

namespace {

#if defined(__linux__) && defined(__NR_membarrier) && !defined(DAMKA_TSAN)
long membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0, 0); }

// Registration is per process and idempotent; done once.
bool register_membarrier() {
  const long supported = membarrier(MEMBARRIER_CMD_QUERY);
  if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
  return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}
#define DAMKA_HAVE_MEMBARRIER 1
#endif

}  // namespace

AsymmetricFence::AsymmetricFence() {
#if defined(DAMKA_HAVE_MEMBARRIER)
  static const bool registered = register_membarrier();
  asymmetric_ = registered;
#endif
}

bool AsymmetricFence::heavy() const {
  if (kSeqCstEpochs) return true;
  std::atomic_thread_fence(std::memory_order_seq_cst);
#if defined(DAMKA_HAVE_MEMBARRIER)
  // Cannot fail once registered (no EINTR for this command).
  if (asymmetric_ && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) return false;
#endif
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return true;
}

}  // namespace damka::cache_detail
