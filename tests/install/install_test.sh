#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, moved elsewhere afterwards (a
# relocatable install), then outside C and C++ programs built against it
# through find_package(damka) and through pkg-config, run on tables built by
# the installed damka; their answers are checked against `damka probe --json`.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR_OF_THIS_TEST
set -euo pipefail
build=$1
here=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/damka-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/staged" >/dev/null
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

# The installed tool finds its own rulebooks, wherever the prefix went.
cd "$tmp"
"$P/bin/damka" statutes --list --json > list.json
grep -q "\"path\": \"$P/share/damka/rulebooks/russian-federation.json\"" list.json ||
  fail "installed damka does not use the installed rulebooks: $(cat list.json)"
mkdir -p custom && cp "$P/share/damka/rulebooks/russian-federation.json" custom/mine.json
DAMKA_RULEBOOKS=$tmp/custom "$P/bin/damka" statutes --list | grep -q '^mine ' || fail "DAMKA_RULEBOOKS not obeyed"

"$P/bin/damka" generate -v russian -n 3 -t 1 -o "$tmp/tables" >/dev/null
fen="W:WKc3,Ke5:Bh6"
expected=$("$P/bin/damka" probe --tables "$tmp/tables" --json "$fen" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)["dtw"]
print(d["result"], 0 if d["result"] == "draw" else d["plies"])')
echo "expected DTW: $expected"

check() {  # program, what
  out=$("$1" "$tmp/tables" "$fen") || fail "$2: exit $?: $out"
  [ "$(echo "$out" | head -1)" = "$expected" ] || fail "$2: got '$(echo "$out" | head -1)', expected '$expected'"
  echo "ok: $2"
}

# find_package(damka)
cmake -S "$here" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/cmake-build" -j2 >/dev/null
check "$tmp/cmake-build/probe_c" "C, find_package, damka::shared"
check "$tmp/cmake-build/probe_cpp" "C++, find_package, damka::shared"
check "$tmp/cmake-build/probe_c_static" "C, find_package, damka::statutes (static)"
check "$tmp/cmake-build/probe_cpp_static" "C++, find_package, damka::statutes (static)"
# The shared library finds the rulebooks installed beside it.
"$tmp/cmake-build/probe_cpp" "$tmp/tables" "$fen" | grep -qx "rulebook $P/share/damka/rulebooks/russian-federation.json" ||
  fail "libdamka.so does not use the installed rulebooks"

# pkg-config
export PKG_CONFIG_PATH=$libdir/pkgconfig
mkdir -p "$tmp/pc"
# shellcheck disable=SC2046
cc -std=c99 -o "$tmp/pc/probe_c" "$here/probe_c.c" $(pkg-config --cflags --libs damka) -Wl,-rpath,"$libdir"
# shellcheck disable=SC2046
c++ -std=c++20 -o "$tmp/pc/probe_cpp" "$here/probe_cpp.cpp" $(pkg-config --cflags --libs damka-static)
check "$tmp/pc/probe_c" "C, pkg-config damka"
check "$tmp/pc/probe_cpp" "C++, pkg-config damka-static"
echo "install test passed"
