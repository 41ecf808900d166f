// The damka command line as a function, so that the shipped executable
// (main.cpp) and the tests' fault-injecting one (tests/support/
// faulty_main.cpp) run the same commands with a different Context.
#pragma once

#include <functional>

#include "damka/env.hpp"

namespace damka::cli {

// What the commands run with beyond their arguments.  The shipped damka
// uses the defaults.
struct Context {
  // Every file operation of the commands that open files: generate (tables,
  // level store, lock, notes), probe, info, verify, statutes, annotate and
  // serve (the tables they read, the folders they list); null: default_env().
  Env* env = nullptr;
  // Test aids, empty in the shipped damka: GenerateOptions::job_progress_hook
  // and GenerateOptions::before_unit of `damka generate`.
  std::function<void(int rank, int job)> job_progress_hook;
  std::function<void()> before_unit;
};

// Parses argv, runs the command, returns its exit code (0 ok, 1 failed, 2
// bad arguments).  Writes to stdout and stderr.
int run(int argc, char** argv, const Context& context);

}  // namespace damka::cli
