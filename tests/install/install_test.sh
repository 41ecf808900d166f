#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, moved elsewhere afterwards (a
# relocatable install), then outside programs built against it as users build
# them: a C-only CMake project (damka::shared, damka::probe, damka::statutes),
# C++17 and C++20 CMake projects, C and C++ through pkg-config; every program
# and the installed damka run with no environment variables (run paths), on
# tables built by the installed damka; answers checked against `damka probe --json`.
# A build tuned to this CPU (-DDAMKA_NATIVE=ON) must refuse to install unless
# DAMKA_INSTALL_NATIVE=1; nothing installed may carry -march=native.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR_OF_THIS_TEST
set -euo pipefail
build=$1
here=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/damka-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# A run with no environment but PATH (no LD_LIBRARY_PATH, DAMKA_RULEBOOKS, ...).
bare() { env -i PATH=/usr/bin:/bin "$@"; }

if grep -q '^DAMKA_NATIVE:BOOL=ON' "$build/CMakeCache.txt"; then
  if out=$(cmake --install "$build" --prefix "$tmp/refused" 2>&1); then
    fail "a -march=native build installed without DAMKA_INSTALL_NATIVE=1"
  fi
  grep -q 'DAMKA_NATIVE' <<<"$out" || fail "the refusal does not say why: $out"
  [ -z "$(find "$tmp/refused" -type f 2>/dev/null)" ] || fail "a refused install left files: $(find "$tmp/refused" -type f | head -3)"
  echo "ok: a native build is refused: $(grep -m1 -o 'this build is tuned[^:]*' <<<"$out")"
  DAMKA_INSTALL_NATIVE=1 cmake --install "$build" --prefix "$tmp/staged" >/dev/null
else
  cmake --install "$build" --prefix "$tmp/staged" >/dev/null
fi
mv "$tmp/staged" "$tmp/prefix"
P=$tmp/prefix
for f in bin/damka include/damka.h include/damka_statutes.h include/damka/probe.hpp include/damka/statutes.hpp \
         share/damka/rulebooks/russian-federation.json; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
libdir=$(dirname "$(find "$P" -name 'libdamka.so' | head -1)")
[ -n "$libdir" ] && [ -e "$libdir/libdamka_probe.a" ] && [ -e "$libdir/cmake/damka/damkaConfig.cmake" ] &&
  [ -e "$libdir/pkgconfig/damka.pc" ] && [ -e "$libdir/pkgconfig/damka-static.pc" ] || fail "libraries, package files"
echo "installed into $P (libraries in ${libdir#$P/})"

! grep -rl -e '-march' "$libdir/cmake" "$libdir/pkgconfig" || fail "installed package files carry -march"
# Run paths, relative to the installed files ($ORIGIN), so the prefix can move.
readelf -d "$P/bin/damka" | grep -E 'R(UN)?PATH' | grep -qF '$ORIGIN/../' || fail "bin/damka has no \$ORIGIN run path"
readelf -d "$libdir/libdamka.so" | grep -E 'R(UN)?PATH' | grep -qF '[$ORIGIN]' || fail "libdamka.so has no \$ORIGIN run path"

# The installed tool finds its own rulebooks, wherever the prefix went.
cd "$tmp"
bare "$P/bin/damka" statutes --list --json > list.json
grep -q "\"path\": \"$P/share/damka/rulebooks/russian-federation.json\"" list.json ||
  fail "installed damka does not use the installed rulebooks: $(cat list.json)"
mkdir -p custom && cp "$P/share/damka/rulebooks/russian-federation.json" custom/mine.json
DAMKA_RULEBOOKS=$tmp/custom "$P/bin/damka" statutes --list | grep -q '^mine ' || fail "DAMKA_RULEBOOKS not obeyed"

bare "$P/bin/damka" generate -v russian -n 3 -t 1 -o "$tmp/tables" >/dev/null
fen="W:WKc3,Ke5:Bh6"
expected=$(bare "$P/bin/damka" probe --tables "$tmp/tables" --json "$fen" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)["dtw"]
print(d["result"], 0 if d["result"] == "draw" else d["plies"])')
echo "expected DTW: $expected"

check() {  # program, what
  out=$(bare "$1" "$tmp/tables" "$fen") || fail "$2: exit $?: $out"
  [ "$(echo "$out" | head -1)" = "$expected" ] || fail "$2: got '$(echo "$out" | head -1)', expected '$expected'"
  echo "ok: $2"
}

# find_package(damka) from a C-only project.
cmake -S "$here/c_only" -B "$tmp/c-build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >/dev/null ||
  fail "C-only project: configure"
cmake --build "$tmp/c-build" -j2 >/dev/null || fail "C-only project: build"
check "$tmp/c-build/probe_c" "C project, find_package, damka::shared"
check "$tmp/c-build/probe_c_probe" "C project, find_package, damka::probe (static)"
check "$tmp/c-build/probe_c_static" "C project, find_package, damka::statutes (static)"
# find_package(damka) from C++17 and C++20 projects.
for std in 17 20; do
  cmake -S "$here" -B "$tmp/cxx$std-build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release \
        -DCONSUMER_CXX_STANDARD=$std >/dev/null || fail "C++$std project: configure"
  cmake --build "$tmp/cxx$std-build" -j2 >/dev/null || fail "C++$std project: build"
  check "$tmp/cxx$std-build/probe_cpp" "C++$std project, find_package, damka::shared"
  check "$tmp/cxx$std-build/probe_cpp_static" "C++$std project, find_package, damka::statutes (static)"
done
# The shared library finds the rulebooks installed beside it.
bare "$tmp/cxx20-build/probe_cpp" "$tmp/tables" "$fen" |
  grep -qx "rulebook $P/share/damka/rulebooks/russian-federation.json" ||
  fail "libdamka.so does not use the installed rulebooks"

# pkg-config, exactly as the README says for a prefix outside the system's.
export PKG_CONFIG_PATH=$libdir/pkgconfig
mkdir -p "$tmp/pc"
# shellcheck disable=SC2046
cc -std=c99 -o "$tmp/pc/probe_c" "$here/c_only/probe_c.c" $(pkg-config --cflags --libs damka) \
   -Wl,-rpath,"$(pkg-config --variable=libdir damka)"
# shellcheck disable=SC2046
c++ -std=c++20 -o "$tmp/pc/probe_cpp" "$here/probe_cpp.cpp" $(pkg-config --cflags --libs damka-static)
check "$tmp/pc/probe_c" "C, pkg-config damka"
check "$tmp/pc/probe_cpp" "C++, pkg-config damka-static"
echo "install test passed"
