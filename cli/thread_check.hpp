// Before a command creates any file: can this process start the threads it
// is asked for?  Under a low `ulimit -v` the OpenMP runtime cannot, and would
// abort with its own "Thread creation failed" mid-build, leaving temporary
// files behind; this says so first, in damka's words.
#pragma once

#include <string>

#include "damka/expected.hpp"

namespace damka::cli {

// Starts `threads` - 1 threads (each with the default stack, as OpenMP's)
// and joins them, then opens an OpenMP team of `threads` so that the
// runtime's pool exists before any file is made.  Error (ErrorCode::Io): how
// many threads could start and why, with the remedy (-t, ulimit -v).
// Cost: creating and joining the threads (well under a millisecond each).
// Call from the main thread before the work starts.
Status check_threads(int threads);

}  // namespace damka::cli
