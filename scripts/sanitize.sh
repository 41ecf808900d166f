#!/usr/bin/env bash
# ThreadSanitizer + UBSan: builds the probe tests into build-tsan/ and runs
# the multi-threaded probe stress tests and the fault tests (C API enum
# arguments, EMFILE recovery, FIFO).  Any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Release -DDAMKA_SANITIZE=thread,undefined -DDAMKA_BENCH=OFF \
  -DCMAKE_CXX_FLAGS= >/dev/null
cmake --build build-tsan -j"$(nproc)" --target test_probe
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 ${UBSAN_OPTIONS:-}"
./build-tsan/tests/test_probe --gtest_filter='ProbeStress.*:ProbeFaults.*'
