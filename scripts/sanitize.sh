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
./build-tsan/tests/test_probe --gtest_filter='ProbeStress.*:ProbeFaults.*:BlockCache.*:AsymmetricFence.*'

# Multi-threaded generation under ThreadSanitizer (clang, LLVM OpenMP, Archer).  GCC's OpenMP runtime is
# not understood by TSan (false reports); clang with LLVM's OpenMP runtime and
# its Archer tool tells TSan about OpenMP's synchronisation.  Russian up to 4
# pieces with 4 threads, once with the defaults and once with a memory budget
# that sends finished levels to disk and drops the units' move graphs (so the
# kings-only materials are swept by distance, engine_sweep.cpp); both must be
# clean and give the same files as a single-threaded GCC build.
archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort -V | tail -n 1)
if [ -z "$archer" ]; then
  echo "sanitize: libarcher.so (Debian libomp-dev) not found" >&2
  exit 1
fi
CC=clang CXX=clang++ cmake -S . -B build-tsan-gen -DCMAKE_BUILD_TYPE=Release -DDAMKA_SANITIZE=thread \
  -DDAMKA_TESTS=OFF -DDAMKA_BENCH=OFF -DDAMKA_PYTHON=OFF -DCMAKE_CXX_FLAGS= >/dev/null
cmake --build build-tsan-gen -j"$(nproc)" --target damka
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_TOOL_LIBRARIES="$archer"
export TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1"
./build-tsan-gen/damka generate -v russian -n 4 -t 4 -o "$tmp/a" >/dev/null
./build-tsan-gen/damka generate -v russian -n 4 -t 4 --memory 122M -o "$tmp/b" >/dev/null
# -n 4 after -n 3: the 3-piece tables are loaded into memory and their
# capture positions resolved by whichever of the 4 threads reads one first.
./build-tsan-gen/damka generate -v russian -n 3 -t 4 -o "$tmp/d" >/dev/null
./build-tsan-gen/damka generate -v russian -n 4 -t 4 -o "$tmp/d" >/dev/null 2>"$tmp/d.err"
grep -q "loading " "$tmp/d.err" || { echo "sanitize: -n 4 after -n 3 loaded no table into memory" >&2; exit 1; }
unset OMP_TOOL_LIBRARIES TSAN_OPTIONS
if [ -x build/damka ]; then
  build/damka generate -v russian -n 4 -t 1 -o "$tmp/c" >/dev/null
  for f in "$tmp"/c/russian/*.wdl "$tmp"/c/russian/*.dtw "$tmp"/c/russian/*.dtc; do
    cmp "$f" "$tmp/a/russian/$(basename "$f")"
    cmp "$f" "$tmp/b/russian/$(basename "$f")"
    cmp "$f" "$tmp/d/russian/$(basename "$f")"
  done
fi
echo "sanitize: multi-threaded generate clean under ThreadSanitizer"
