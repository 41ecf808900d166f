#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (ctest), then the
# sanitizer run of the probe stress and fault tests (scripts/sanitize.sh) and
# a bounded fuzzing run of every fuzz target (scripts/fuzz.sh,
# DAMKA_FUZZ_SECONDS each, default 30).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)" --timeout 900)
bash scripts/sanitize.sh
bash scripts/fuzz.sh "${DAMKA_FUZZ_SECONDS:-30}"
