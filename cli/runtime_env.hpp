// The environment the damka executable gives itself before its runtime
// libraries start: settings they read once, when they are loaded (before
// main), so the process starts itself again with them set (cli/main.cpp).
// A process setting, never a library's: engines that link damka's libraries
// keep their own.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

namespace damka::cli {

struct EnvSetting {
  std::string_view name, value;
  friend bool operator==(const EnvSetting&, const EnvSetting&) = default;
};

// glibc's allocator, as damka sets it where the user has not (GLIBC_TUNABLES):
//  - blocks under 32 MiB (the most glibc takes) from its heaps, freed blocks
//    kept there (up to 1 GiB free at a heap's top) instead of each large one
//    mapped anew and given back at free (the default above 128 KiB, raised
//    only as blocks are freed): a block mapped anew is faulted in a page at
//    a time, which on virtual machines that hand freed memory back to their
//    host costs about 11 us a 4 KiB page;
//  - its heaps and larger blocks on transparent huge pages (hugetlb=1;
//    madvise, as huge_alloc's arrays are): 512 times fewer faults.
// Russian `-n 5 -t 2`: 70,500 page faults -> 5,818 (README, "Memory").
inline constexpr std::string_view kMallocTunables =
    "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824:glibc.malloc.hugetlb=1";

// The settings to add to an environment read through `get` (null: unset):
// OpenMP's idle threads wait passively unless OMP_WAIT_POLICY or
// GOMP_SPINCOUNT is set (README, "Threads"), and glibc's allocator is tuned
// as above unless GLIBC_TUNABLES is set.  Empty: nothing to add (the
// process must not start itself again).  Cost: a few lookups; pure.
std::vector<EnvSetting> runtime_env(const std::function<const char*(const char*)>& get);

}  // namespace damka::cli
