#!/usr/bin/env bash
# Configures and builds damka (optimised, asserts kept) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDAMKA_NATIVE=ON >/dev/null
cmake --build build -j"$(nproc)"
