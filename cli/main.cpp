// damka: build, check and probe endgame tablebases for draughts.
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "run.hpp"
#include "runtime_env.hpp"

namespace {

// The settings the runtime libraries read when they are loaded, before main
// (runtime_env.hpp): where the user set none, the process sets them and
// starts itself again (one exec: about a millisecond).
//  - Idle OpenMP threads sleep instead of spinning.  libgomp's default spins
//    for a while at every barrier and between parallel regions: on a machine
//    with other work the spinning thread takes the core its team mate needs,
//    and `-t 2` ran 2-4x slower than `-t 1` (README, "Threads").  What
//    sleeping costs on idle cores (a wake-up per parallel region) is not yet
//    measured: no idle machine was to be had.
//  - glibc's allocator keeps freed blocks for reuse, on huge pages, instead
//    of faulting large ones in again (README, "Memory").
// When a setting or the exec fails, the process carries on with the
// runtimes' defaults.
void set_runtime_env(char** argv) {
  const auto add = damka::cli::runtime_env([](const char* name) { return std::getenv(name); });
  if (add.empty()) return;
  for (const damka::cli::EnvSetting& s : add)
    if (::setenv(std::string(s.name).c_str(), std::string(s.value).c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
}

}  // namespace

int main(int argc, char** argv) {
  set_runtime_env(argv);
  return damka::cli::run(argc, argv, damka::cli::Context{});
}
