#!/usr/bin/env bash
# Installs the build into a fresh prefix and builds main.cpp the way a Makefile user would:
#   c++ main.cpp $(pkg-config --cflags --libs treefold-cxx)
# then runs it on 2 ranks; and checks that treefold.pc's flags are C flags (no -std=c++20):
# the C consumer builds with `mpicc -std=c99 -Werror` and them alone. Usage: check.sh <build dir> <c++ compiler> <mpiexec> <version> [<mpicc>]
set -eu
build="$1"; cxx="$2"; mpiexec="$3"; version="$4"; mpicc="${5:-mpicc}"
read -ra mpirun <<<"${TREEFOLD_MPIRUN:-$mpiexec}" # the configuration's launcher and flags (ctest sets it)
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
pc_dir="$(dirname "$(find "$work/prefix" -name treefold.pc)")"
export PKG_CONFIG_PATH="$pc_dir"
[[ "$(pkg-config --modversion treefold)" == "$version" ]] || { echo "FAIL: pkg-config --modversion"; exit 1; }
flags="$(pkg-config --cflags --libs treefold-cxx)"
echo "pkg-config --cflags --libs treefold-cxx: $flags"
# shellcheck disable=SC2086 # the flags are words
"$cxx" "$(dirname "$0")/main.cpp" $flags -o "$work/tiny"
out="$("${mpirun[@]}" -n 2 "$work/tiny")"
echo "$out"
[[ "$out" == "treefold $version: sum of 1..100 = 5050" ]] || { echo "FAIL: unexpected output"; exit 1; }
c_flags="$(pkg-config --cflags --libs treefold)"
echo "pkg-config --cflags --libs treefold: $c_flags"
# The C line links the core (the C API) and what it stands on, nothing a C program never calls:
# no component library and no MPI C++ bindings library.
echo "the C line's libraries:"; tr ' ' '\n' <<<"$(pkg-config --libs treefold)" | grep -E '^-l|\.(so|a)$' | sed 's/^/  /'
for unwanted in -ltreefold_ libmpi_cxx libmpicxx; do
  [[ "$(pkg-config --libs treefold)" != *"$unwanted"* ]] || { echo "FAIL: the C line names $unwanted"; exit 1; }
done
[[ " $(pkg-config --libs treefold) " == *" -ltreefold "* ]] || { echo "FAIL: the C line does not link -ltreefold"; exit 1; }
# A component's line: its library before the core's (collective stands on io).
collective="$(pkg-config --libs treefold-collective)"
echo "pkg-config --libs treefold-collective: $collective"
[[ "$collective" == *"-ltreefold_collective -ltreefold_io -ltreefold "* ]] ||
  { echo "FAIL: treefold-collective's line is not collective, io, core"; exit 1; }
[[ "$(pkg-config --cflags treefold)" != *-std=* ]] || { echo "FAIL: a -std= flag in treefold.pc's Cflags"; exit 1; }
# shellcheck disable=SC2086 # the flags are words
"$mpicc" -std=c99 -Wall -Wextra -Wpedantic -Werror "$(dirname "$0")/../consumer/allreduce.c" $c_flags -o "$work/tiny_c"
"${mpirun[@]}" -n 2 "$work/tiny_c"
