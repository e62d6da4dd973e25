#!/usr/bin/env bash
# The same bits under Open MPI and MPICH: two builds of treefold, one against each
# implementation, give one bit pattern per input for `treefold sum` with every exchange the
# tool offers, for the C API (mpi_bits) and for the Fortran module (mpi_bits_f), at every p.
# Inputs: the shared data sets, a synthetic file of 10^6 values (written by mpi_bits) and the
# tool's built-in workload. Each build's programs run under that build's own launcher, with its
# flags and environment (its treefold-mpi.txt, written by cmake/TreefoldDependencies.cmake).
# Fails on any difference, naming the input, the program (and exchange), p and both patterns;
# also where a pattern differs from the input's first one or from the data's reference bits.
# Refuses one build, or two builds of the same implementation.
# Usage: check_mpi_bits.sh [options] <build dir> <build dir>
#   --data DIR         the folder of .binpsllh files (default: ../shared/data/psllh beside the
#                      sources; a folder without any: the synthetic inputs only)
#   --synthetic N      the synthetic file's N (default 1000000)
#   --procs "P..."     the process counts (default 1 2 3 4)
#   --exchanges "E..." only these of the tool's exchanges (default: every one it offers)
#   --no-built-in      leave out the tool's built-in workload
# (The options make the short runs of the check's own tests, test/mpi/CMakeLists.txt.)
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="$here/../../../shared/data/psllh"
synthetic_n=1000000
procs="1 2 3 4"
only_exchanges=""
built_in=1
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --data) data="$2"; shift ;;
    --synthetic) synthetic_n="$2"; shift ;;
    --procs) procs="$2"; shift ;;
    --exchanges) only_exchanges="$2"; shift ;;
    --no-built-in) built_in=0 ;;
    *) echo "check_mpi_bits: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
builds=("$@")
mpiexec="" # (checks.sh's launcher is not used: each build has its own)
source "$here/../support/checks.sh"
refuse() { fail "$*"; finish check_mpi_bits; exit 1; }

[[ ${#builds[@]} -eq 2 ]] ||
  refuse "give two build folders, one configured against Open MPI and one against MPICH (got ${#builds[@]})"
# Each build's implementation, launcher words and launcher environment (';'-separated).
declare -a impl launcher environment
for i in 0 1; do
  file="${builds[$i]}/treefold-mpi.txt"
  [[ -f "$file" ]] || refuse "${builds[$i]} is no configured treefold build (no treefold-mpi.txt)"
  impl[i]="$(sed -n 's/^implementation=//p' "$file")"
  launcher[i]="$(sed -n 's/^mpirun=//p' "$file")"
  environment[i]="$(sed -n 's/^environment=//p' "$file")"
  [[ "${impl[i]}" == "Open MPI" || "${impl[i]}" == MPICH ]] ||
    refuse "${builds[$i]} uses the MPI '${impl[i]}': want one build against Open MPI and one against MPICH"
  [[ -n "${launcher[i]}" ]] || refuse "$file names no launcher"
done
[[ "${impl[0]}" != "${impl[1]}" ]] ||
  refuse "both builds use ${impl[0]} (${builds[0]}, ${builds[1]}): want one against Open MPI and one against MPICH"

# The programs: the tool and the C program in both builds; the Fortran program in both or neither.
cli=() c=() fortran=()
for i in 0 1; do
  cli[i]="${builds[$i]}/src/cli/treefold"
  c[i]="${builds[$i]}/test/mpi/mpi_bits"
  fortran[i]="${builds[$i]}/test/mpi/mpi_bits_f"
  [[ -x "${cli[i]}" ]] || refuse "no ${cli[i]} (build the target treefold-cli)"
  [[ -x "${c[i]}" ]] || refuse "no ${c[i]} (build the target mpi_bits)"
done
with_fortran=1
if [[ ! -x "${fortran[0]}" && ! -x "${fortran[1]}" ]]; then
  with_fortran=0
  echo "NOTE: neither build has the Fortran module's program (mpi_bits_f): Fortran not compared"
else
  for i in 0 1; do
    [[ -x "${fortran[i]}" ]] || refuse "no ${fortran[i]}, but the other build has one (build the target mpi_bits_f)"
  done
fi

# launch <build index> <p> <program> [args...]: rank 0's tree sum bits, or what went wrong
launch() {
  local i="$1" p="$2"; shift 2
  local words env_pairs out
  read -ra words <<<"${launcher[i]}"
  IFS=';' read -ra env_pairs <<<"${environment[i]}"
  out="$(timeout 120 env "${env_pairs[@]}" "${words[@]}" -n "$p" "$@" 2>"$work/stderr")"
  local rc=$? bits
  bits="$(sed -n 's/^tree sum bits *: *//p' <<<"$out")"
  if [[ $rc -ne 0 || ! "$bits" =~ ^[0-9A-F]{16}$ ]]; then
    echo "no bits (status $rc: $(tr '\n' ' ' <"$work/stderr" | cut -c1-300))"
  else
    echo "$bits"
  fi
}

# The exchanges, as each build's tool names them (its refusal of an unknown one lists them).
exchanges_of() {
  "$1" sum --exchange '?' --repeat 1 2>&1 | sed -n 's/.*(want one of \(.*\))$/\1/p' | tr -d ','
}
exchanges="$(exchanges_of "${cli[0]}")"
[[ -n "$exchanges" ]] || refuse "${cli[0]} sum listed no exchanges"
[[ "$(exchanges_of "${cli[1]}")" == "$exchanges" ]] ||
  refuse "the tools offer different exchanges: '$exchanges' (${impl[0]}) vs '$(exchanges_of "${cli[1]}")' (${impl[1]})"
if [[ -n "$only_exchanges" ]]; then
  for e in $only_exchanges; do
    [[ " $exchanges " == *" $e "* ]] || refuse "the tool offers no exchange '$e' (it offers: $exchanges)"
  done
  exchanges="$only_exchanges"
fi

synthetic="$work/synthetic.binpsllh"
"${c[0]}" --write-synthetic "$synthetic" "$synthetic_n" || refuse "could not write the synthetic input"
inputs=()
for f in "$data"/*.binpsllh; do [[ -f "$f" ]] && inputs+=("$f"); done
[[ ${#inputs[@]} -gt 0 ]] || echo "NOTE: no data sets at $data; the synthetic inputs only"
inputs+=("$synthetic")
[[ $built_in -eq 1 ]] && inputs+=("built-in")

# compare <input> <what ran> <p> <program: cli, c or fortran> <args...>: both builds' bits,
# against each other and against the input's first pattern ($first)
compare() {
  local input="$1" what="$2" p="$3" program="$4"; shift 4
  local -n programs="$program"
  local a b
  a="$(launch 0 "$p" "${programs[0]}" "$@")"
  b="$(launch 1 "$p" "${programs[1]}" "$@")"
  if [[ "$a" != "$b" ]]; then
    fail "$input, $what, p=$p: $a (${impl[0]}) vs $b (${impl[1]})"
  elif [[ ! "$a" =~ ^[0-9A-F]{16}$ ]]; then
    fail "$input, $what, p=$p: $a (both builds)"
  elif [[ -n "$first" && "$a" != "$first" ]]; then
    fail "$input, $what, p=$p: $a in both builds, but $first from $first_from"
  else
    pass
    [[ -n "$first" ]] || { first="$a"; first_from="$what at p=$p"; }
  fi
}

for input in "${inputs[@]}"; do
  name="$(basename "$input")"
  first="" first_from=""
  file_args=("$input")
  [[ "$input" == built-in ]] && file_args=()
  for p in $procs; do
    for e in $exchanges; do
      compare "$name" "treefold sum --exchange $e" "$p" cli sum "${file_args[@]}" --exchange "$e" --repeat 1
    done
    [[ "$input" == built-in ]] && continue
    compare "$name" "C API (mpi_bits)" "$p" c "$input"
    [[ $with_fortran -eq 1 ]] && compare "$name" "Fortran module (mpi_bits_f)" "$p" fortran "$input"
  done
  want="$(grep "^$name," "$data/reference_tree_sum.csv" 2>/dev/null | cut -d, -f2)"
  [[ -z "$want" || "$first" == "$want" ]] && pass || fail "$name: $first, reference bits $want"
done
finish check_mpi_bits
