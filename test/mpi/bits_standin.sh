#!/usr/bin/env bash
# A stand-in for one program of a build against the other MPI, for check_mpi_bits.sh's own
# tests (test/mpi/CMakeLists.txt): runs this build's <program>, and where <when> holds, prints
# the tree sum bits it printed with the lowest bit flipped (the next double: the smallest
# change a build could make).
# Usage: bits_standin.sh <when: never | p2 | p2:EXCHANGE> <program> [args...]
#   p2: at p = 2 (the launcher's OMPI_COMM_WORLD_SIZE or PMI_SIZE); p2:E: at p = 2 with --exchange E
when="$1"; program="$2"; shift 2
size="${OMPI_COMM_WORLD_SIZE:-${PMI_SIZE:-1}}"
change=0
case "$when" in
  p2) [[ "$size" == 2 ]] && change=1 ;;
  p2:*) [[ "$size" == 2 && " $* " == *" --exchange ${when#p2:} "* ]] && change=1 ;;
esac
out="$("$program" "$@")"; rc=$?
while IFS= read -r line; do
  if [[ $change -eq 1 && "$line" =~ ^(tree\ sum\ bits\ *:\ *[0-9A-F]{15})([0-9A-F])$ ]]; then
    line="${BASH_REMATCH[1]}$(printf '%X' $((16#${BASH_REMATCH[2]} ^ 1)))"
  fi
  printf '%s\n' "$line"
done <<<"$out"
exit $rc
