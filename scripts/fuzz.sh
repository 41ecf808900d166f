#!/usr/bin/env bash
# Builds the libFuzzer targets (clang; ASan + UBSan) into build-fuzz/ and runs
# each for SECONDS (default 30) from its seed corpus in fuzz/corpus/<target>/.
# Fails on any finding (crash, sanitizer report, failed property, timeout);
# the input that caused it is written to build-fuzz/findings/.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fuzz_fen fuzz_move fuzz_table fuzz_rulebook fuzz_game fuzz_http fuzz_pdn)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DDAMKA_FUZZ=ON \
  -DDAMKA_TESTS=OFF -DDAMKA_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}" c_api_enum_check
mkdir -p build-fuzz/findings
status=0
# The C API given enum values outside their enums, under UBSan.
if UBSAN_OPTIONS=halt_on_error=1 ./build-fuzz/fuzz/c_api_enum_check build-fuzz; then
  echo "fuzz: c_api_enum_check: ok"
else
  echo "fuzz: c_api_enum_check: FAILED" >&2
  status=1
fi
for t in "${targets[@]}"; do
  # New inputs go to build-fuzz/corpus/<target>; the seeds in the repository stay as they are.
  mkdir -p "build-fuzz/corpus/$t"
  log="build-fuzz/$t.log"
  if ./build-fuzz/fuzz/"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="build-fuzz/findings/$t-" "build-fuzz/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    echo "fuzz: $t: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') executions in ${seconds} s, no finding"
  else
    echo "fuzz: $t: FINDING (see $log and build-fuzz/findings/)" >&2
    tail -n 40 "$log" >&2
    status=1
  fi
done
exit $status
