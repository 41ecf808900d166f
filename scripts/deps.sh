#!/usr/bin/env bash
# Installs the Debian packages damka needs, only those that are missing.
set -euo pipefail
packages=(g++ cmake make pkg-config libzstd-dev libxxhash-dev libcli11-dev nlohmann-json3-dev
          librapidcheck-dev googletest libgtest-dev libbenchmark-dev python3-dev python3-pybind11 pybind11-dev
          python3-venv python3-setuptools python3-wheel  # pip install . (pyproject.toml) into a venv, offline
          clang libclang-rt-14-dev libomp-dev  # clang: libFuzzer targets (scripts/fuzz.sh)
          libcpp-httplib-dev chromium  # damka serve; its browser test runs Chromium headless
          openmpi-bin libopenmpi-dev)  # mpirun -np N damka generate (README, "Building on several machines")
# The browser test installs puppeteer-core with npm (tests/serve/package.json);
# a node/npm already on the PATH (e.g. from NodeSource) is used as it is.
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "damka: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
