#!/usr/bin/env bash
# Compile time of a minimal user program (one reducer<double>, one all_reduce) including the
# narrow header treefold/reducer.hpp versus the umbrella treefold/treefold.hpp, both the whole
# compile (g++ -std=c++20 -O2 -c) and the front end alone (-fsyntax-only, what headers cost).
# Usage: [RUNS=5] [CXX=g++] perf/header_compile_time.sh [INCLUDE_DIR...]
#        (default include dirs: include/ and build/kit/include, for the generated version.hpp)
# Prints the least CPU time (user + sys of the compiler) of RUNS runs: CPU time rather than wall
# time, since this machine's 2 cores are shared. xsimd and Boost are expected in /usr/include
# (Debian); MPI's flags come from mpicxx.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${RUNS:-5}"
cxx="${CXX:-g++}"
incs=()
for d in "${@:-$root/include $root/build/kit/include}"; do
  for x in $d; do incs+=("-I$x"); done
done
read -r -a mpi_flags <<<"$(mpicxx --showme:compile 2>/dev/null || true)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
TIMEFORMAT='%U %S'
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
  for mode in "-O2 -c -o $work/prog.o" "-fsyntax-only"; do
    best=""
    for ((i = 0; i < runs; ++i)); do
      # shellcheck disable=SC2086 # mode is words
      t="$({ time "$cxx" -std=c++20 -ffp-contract=off "${incs[@]}" "${mpi_flags[@]}" $mode "$work/prog.cpp" >/dev/null; } 2>&1)"
      best="$(awk -v t="$t" -v best="$best" 'BEGIN { split(t, a, " "); s = a[1] + a[2]; print (best == "" || s < best) ? s : best }')"
    done
    printf '%-24s %-14s %6.2f s CPU (least of %d)\n' "$header" "${mode%% -o*}" "$best" "$runs"
  done
done
