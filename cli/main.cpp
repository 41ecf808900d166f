// damka: build, check and probe endgame tablebases for draughts.
#include <unistd.h>

#include <cstdlib>

#include "run.hpp"

namespace {

// Idle OpenMP threads sleep instead of spinning, unless the user chose a
// policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT).  libgomp's default spins
// for a while at every barrier and between parallel regions: on a machine
// with other work the spinning thread takes the core its team mate needs,
// and `-t 2` ran 2-4x slower than `-t 1` (README, "Threads").  What
// sleeping costs on idle cores (a wake-up per parallel region) is not yet
// measured: no idle machine was to be had.  The runtime reads the
// policy when it is loaded, before main, so the process starts itself
// again with the variable set (one exec: about a millisecond).  When that
// fails it carries on with the runtime's default.
void wait_passively(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);
}

}  // namespace

int main(int argc, char** argv) {
  wait_passively(argv);
  return damka::cli::run(argc, argv, damka::cli::Context{});
}
