#!/usr/bin/env bash
# Compile time of a minimal user program (one reducer<double>, one all_reduce) including the
# narrow header treefold/reducer.hpp versus the umbrella treefold/treefold.hpp.
# Usage: perf/header_compile_time.sh [INCLUDE_DIR...] (default: include/ and build/kit/include)
# Prints the fastest of RUNS (default 5) wall-clock compiles (g++ -std=c++20 -O2 -c) per header.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${RUNS:-5}"
cxx="${CXX:-g++}"
incs=()
for d in "${@:-$root/include $root/build/kit/include}"; do
  for x in $d; do incs+=("-I$x"); done
done
xsimd="$(dirname "$(find /usr/include -maxdepth 2 -name xsimd.hpp -path '*xsimd*' | head -1)")/.."
mpi_flags=$(mpicxx --showme:compile 2>/dev/null || true)
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
for header in treefold/reducer.hpp treefold/treefold.hpp; do
  cat > "$work/prog.cpp" <<CPP
#include <$header>
#include <vector>
double total(const boost::mpi::communicator& world, const std::vector<double>& local)
{
    auto layout = treefold::layout_from_local_size(world, local.size());
    treefold::reducer<double> sum(world, layout);
    return sum.all_reduce(local);
}
CPP
  best=""
  for ((i = 0; i < runs; ++i)); do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$cxx" -std=c++20 -O2 -ffp-contract=off "${incs[@]}" -isystem "$xsimd" $mpi_flags -c "$work/prog.cpp" -o "$work/prog.o"
    t1=$(date +%s.%N)
    best=$(awk -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v best="$best" \
      'BEGIN { print (best == "" || t < best) ? t : best }')
  done
  printf '%-24s %6.2f s (fastest of %d)\n' "$header" "$best" "$runs"
done
