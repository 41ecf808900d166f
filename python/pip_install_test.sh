#!/usr/bin/env bash
# `pip install .` (pyproject.toml, --no-build-isolation, offline) into a fresh
# venv of Debian's python3, reusing the CMake build folder (the module is
# built there already: DAMKA_CMAKE_BUILD_DIR), then the module imported from
# the venv, with no PYTHONPATH, probing a small table; its answer is checked
# against `damka probe --json`.
# Usage: pip_install_test.sh SOURCE_DIR BUILD_DIR TABLES DAMKA_EXE
set -euo pipefail
src=$1
build=$2
tables=$3
exe=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/damka-pip-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
out=$(cd "$src" && DAMKA_CMAKE_BUILD_DIR=$build "$tmp/venv/bin/pip" install --no-build-isolation --no-index \
        --no-cache-dir . 2>&1) || fail "pip install: $out"
echo "$out" | tail -1
fen="W:WKa1,Kc3,Ke5:BKh8"
expected=$("$exe" probe --tables "$tables" --json "$fen" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)["dtw"]
print(d["result"], d.get("plies", 0))')
cd "$tmp"
got=$(env -u PYTHONPATH "$tmp/venv/bin/python" -c '
import sys, damka
assert damka.__file__.startswith(sys.prefix), (damka.__file__, sys.prefix)
v = damka.Tablebase("russian", sys.argv[1]).probe(sys.argv[2], "dtw")
print(v.result, v.plies)' "$tables" "$fen") || fail "the installed module: $got"
[ "$got" = "$expected" ] || fail "the venv's module says '$got', damka probe '$expected'"
echo "ok: the module installed in the venv probes $fen: $got"
"$tmp/venv/bin/pip" uninstall -y damka >/dev/null || fail "pip uninstall"
if env -u PYTHONPATH "$tmp/venv/bin/python" -c 'import damka, sys; sys.exit(0 if damka.__file__.startswith(sys.prefix) else 1)' 2>/dev/null; then
  fail "still importable from the venv after pip uninstall"
fi
echo "pip install test passed"
