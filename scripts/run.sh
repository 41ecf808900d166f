#!/usr/bin/env bash
# The main job: installs what is missing, builds, generates the default
# Russian tables up to 4 pieces into data/tables/ (keeping those already
# there and valid), verifies them, and prints the Russian federation rules'
# draw-statute report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/damka generate --variant russian --pieces 4 --out data/tables
./build/damka verify data/tables --variant russian
./build/damka statutes --rulebook russian-federation --tables data/tables
