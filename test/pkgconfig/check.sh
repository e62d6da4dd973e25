#!/usr/bin/env bash
# Installs the build into a fresh prefix and builds main.cpp the way a Makefile user would:
#   c++ main.cpp $(pkg-config --cflags --libs treefold)
# then runs it on 2 ranks. Usage: check.sh <build dir> <c++ compiler> <mpiexec> <version>
set -eu
build="$1"; cxx="$2"; mpiexec="$3"; version="$4"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
pc_dir="$(dirname "$(find "$work/prefix" -name treefold.pc)")"
export PKG_CONFIG_PATH="$pc_dir"
[[ "$(pkg-config --modversion treefold)" == "$version" ]] || { echo "FAIL: pkg-config --modversion"; exit 1; }
flags="$(pkg-config --cflags --libs treefold)"
echo "pkg-config --cflags --libs treefold: $flags"
# shellcheck disable=SC2086 # the flags are words
"$cxx" "$(dirname "$0")/main.cpp" $flags -o "$work/tiny"
out="$("$mpiexec" -n 2 --oversubscribe "$work/tiny")"
echo "$out"
[[ "$out" == "treefold $version: sum of 1..100 = 5050" ]] || { echo "FAIL: unexpected output"; exit 1; }
