#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (ctest), then the
# sanitizer run of the probe stress and fault tests (scripts/sanitize.sh), a
# bounded fuzzing run of every fuzz target (scripts/fuzz.sh,
# DAMKA_FUZZ_SECONDS each, default 30) and the profile-feedback build
# (scripts/build-pgo.sh in build-pgo/, trained on 4-piece tables: it checks
# that its binary writes the training build's bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)" --timeout 900)
bash scripts/sanitize.sh
bash scripts/fuzz.sh "${DAMKA_FUZZ_SECONDS:-30}"
DAMKA_PGO_PIECES=4 bash scripts/build-pgo.sh build-pgo
