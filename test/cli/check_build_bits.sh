#!/usr/bin/env bash
# Builds of `treefold sum` (say clang++ -O0 with sanitizers, g++ -O3 and clang++ -O2) give the
# same tree sum bits on every data set, at p = 1 and 3, with the built-in workload too; where
# the data folder has reference bits, they equal those. Each build runs once per input and p.
# Usage: check_build_bits.sh <mpiexec> <psllh data dir> <treefold binary> <treefold binary>...
set -u
mpiexec="$1"; data="$2"; shift 2
tools=("$@")
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
[[ ${#tools[@]} -ge 2 ]] || { fail "give at least two builds to compare"; finish check_build_bits; exit; }
bits() { # bits <tool> <p> <args...>: the tree sum bits rank 0 prints
  local tool="$1" p="$2" out; shift 2
  out="$("${mpirun[@]}" -n "$p" "$tool" sum "$@" 2>&1 | sed -n 's/^tree sum bits *: *//p')"
  # Under load, MPICH's hydra now and then ends a run of a process that lives a few
  # milliseconds (this check's stub tools) with status 141 and its output lost (about 1 run
  # in 40 with 80 at once, at p = 1 too): a run that printed nothing is made once more.
  [[ -n "$out" ]] || out="$("${mpirun[@]}" -n "$p" "$tool" sum "$@" 2>&1 | sed -n 's/^tree sum bits *: *//p')"
  echo "$out"
}
inputs=("")
[[ -d "$data" ]] && for f in "$data"/*.binpsllh; do inputs+=("$f"); done
[[ ${#inputs[@]} -gt 1 ]] || echo "NOTE: no data sets at $data; the built-in workload only"
for input in "${inputs[@]}"; do
  name="${input:-built-in workload}"
  for p in 1 3; do
    x="$(bits "${tools[0]}" "$p" $input --repeat 1)"
    [[ "$x" =~ ^[0-9A-F]{16}$ ]] && pass || fail "$name at p=$p: '$x' from ${tools[0]} is no bit pattern"
    for tool in "${tools[@]:1}"; do
      y="$(bits "$tool" "$p" $input --repeat 1)"
      [[ "$x" == "$y" ]] && pass || fail "$name at p=$p: '$x' (${tools[0]}) vs '$y' ($tool)"
    done
    want="$(grep "^$(basename "${input:-none}")," "$data/reference_tree_sum.csv" 2>/dev/null | cut -d, -f2)"
    [[ -z "$want" || "$x" == "$want" ]] && pass || fail "$name at p=$p: '$x', reference '$want'"
  done
done
finish check_build_bits
