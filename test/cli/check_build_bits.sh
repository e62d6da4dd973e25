#!/usr/bin/env bash
# Two builds of `treefold sum` (say clang++ -O0 with sanitizers and g++ -O3) give the same tree
# sum bits on every data set, at p = 1 and 3, with the built-in workload too; where the data
# folder has reference bits, they equal those.
# Usage: check_build_bits.sh <treefold binary A> <treefold binary B> <mpiexec> <psllh data dir>
set -u
a="$1"; b="$2"; mpiexec="$3"; data="$4"
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
bits() { # bits <tool> <p> <args...>: the tree sum bits rank 0 prints
  local tool="$1" p="$2"; shift 2
  "${mpirun[@]}" -n "$p" "$tool" sum "$@" 2>&1 | sed -n 's/^tree sum bits *: *//p'
}
inputs=("")
[[ -d "$data" ]] && for f in "$data"/*.binpsllh; do inputs+=("$f"); done
[[ ${#inputs[@]} -gt 1 ]] || echo "NOTE: no data sets at $data; the built-in workload only"
for input in "${inputs[@]}"; do
  for p in 1 3; do
    x="$(bits "$a" "$p" $input --repeat 1)"
    y="$(bits "$b" "$p" $input --repeat 1)"
    name="${input:-built-in workload}"
    [[ "$x" =~ ^[0-9A-F]{16}$ && "$x" == "$y" ]] && pass || fail "$name at p=$p: '$x' ($a) vs '$y' ($b)"
    want="$(grep "^$(basename "${input:-none}")," "$data/reference_tree_sum.csv" 2>/dev/null | cut -d, -f2)"
    [[ -z "$want" || "$x" == "$want" ]] && pass || fail "$name at p=$p: '$x', reference '$want'"
  done
done
finish check_build_bits
