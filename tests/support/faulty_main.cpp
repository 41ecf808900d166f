// damka_faulty: the damka command line (cli/run.hpp) with the faults that
// DAMKA_TEST_FAULT names, for the tests that run the executable under
// faults (tests/cli).  Never installed; the shipped damka has no fault hooks.
//   kill-mid-write, kill-before-rename (with -<n>: at the n-th table),
//   enospc-write-<n>, eio-write-<n>,
//   eio-read, short-read, eio-list, eacces-mkdir: a FaultEnv (fault_env.hpp)
//   for every command that opens files (cli::Context::env);
//   kill-rank-<r>: rank r of an mpirun job kills itself (SIGKILL) while
//   building its second job;
//   bad-alloc-in-worker: every worker of the pass engine runs out of memory.
// Unset or empty: no fault.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>

#include "fault_env.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  const char* given = std::getenv("DAMKA_TEST_FAULT");
  const std::string fault = given != nullptr ? given : "";
  damka::cli::Context context;
  std::optional<damka::testing::FaultEnv> env;
  if (fault.empty()) {
  } else if (auto plan = damka::testing::fault_plan_named(fault)) {
    env.emplace(*plan);
    context.env = &*env;
  } else if (fault.rfind("kill-rank-", 0) == 0) {
    const int victim = std::atoi(fault.c_str() + 10);
    context.job_progress_hook = [victim](int rank, int job) {
      if (rank == victim && job == 2) std::raise(SIGKILL);
    };
  } else if (fault == "bad-alloc-in-worker") {
    context.before_unit = [] { throw std::bad_alloc(); };
  } else {
    std::fprintf(stderr, "damka_faulty: unknown DAMKA_TEST_FAULT '%s'\n", fault.c_str());
    return 2;
  }
  return damka::cli::run(argc, argv, context);
}
