#!/usr/bin/env bash
# Checks the include layering of a treefold source tree and prints every violation as
# file:line. Usage: check_layering.sh [ROOT] (default: the repository holding this script).
# Exit status: 0 when the tree is clean, 1 when something breaks a rule, 2 on bad usage.
set -uo pipefail

# ---- The rules (the one place to change them) ---------------------------------------------
# Layers that know nothing of MPI: include/treefold/<layer>/ and src/<layer>/ (a component's:
# components/<layer>/include/treefold/<layer>/ and components/<layer>/src/).
MPI_FREE_LAYERS=(index_tree layout plan kernel topology model io)
# What those may not include: MPI itself (an include path equal to, or under, one of these) ...
MPI_INCLUDES=(mpi.h boost/mpi.hpp boost/mpi)
# ... nor a treefold header of the layers that talk to the network, nor the front doors.
NETWORK_LAYERS=(collective exchange net front_door rma dsop)
NETWORK_FILES=(reducer.hpp row_reducer.hpp)
# Layers that must not include each other (either direction), in include/treefold/ and src/.
SEPARATED=("collective exchange")
# The components: the core (every other layer and top-level header) includes none of them.
COMPONENT_LAYERS=(collective model dsop rma io)
# What may include components: the tools on top, and the header that joins every registry.
ABOVE_COMPONENTS=(cli all_exchanges.hpp)
# Files looked at.
SOURCE_GLOB='.*\.(h|hpp|hh|hxx|ipp|inl|tpp|c|cc|cpp|cxx)$'
# --------------------------------------------------------------------------------------------

ROOT="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
if [[ ! -d "$ROOT/include/treefold" ]]; then
  echo "check_layering: $ROOT has no include/treefold" >&2
  exit 2
fi
ROOT="$(cd "$ROOT" && pwd -P)"

contains() { # contains <word> <list...>
  local w="$1"
  shift
  local x
  for x in "$@"; do [[ "$x" == "$w" ]] && return 0; done
  return 1
}

# Sets LAYER to the layer a repository-relative file belongs to (include/treefold/<layer>/...,
# src/<layer>/..., components/<layer>/include/treefold/<layer>/... or components/<layer>/src/...),
# or to a top-level header's name (reducer.hpp); empty otherwise.
layer_of_file() {
  local rel="$1" rest
  LAYER=""
  case "$rel" in
    include/treefold/*) rest="${rel#include/treefold/}" ;;
    src/*) rest="${rel#src/}" ;;
    components/*/include/treefold/*) rest="${rel#components/*/include/treefold/}" ;;
    components/*/src/*) rest="${rel#components/}"; rest="${rest%%/*}/${rest#*/src/}" ;;
    *) return ;;
  esac
  LAYER="${rest%%/*}" # (a layer's internals sit in <layer>/detail/: the same layer)
}

# Sets LAYER to the treefold layer (or top-level header) an include names, resolving
# "treefold/..." paths and quoted paths relative to the including file; empty otherwise.
layer_of_include() {
  local file="$1" path="$2" quoted="$3" resolved rel
  LAYER=""
  if [[ "$path" == treefold/* ]]; then
    rel="${path#treefold/}"
    LAYER="${rel%%/*}"
    return
  fi
  [[ "$quoted" == 1 ]] || return
  resolved="$(realpath -m "$ROOT/${file%/*}/$path")"
  case "$resolved" in
    "$ROOT"/include/treefold/* | "$ROOT"/src/* | "$ROOT"/components/*) layer_of_file "${resolved#"$ROOT"/}" ;;
  esac
}

is_mpi_include() {
  local path="$1" m
  for m in "${MPI_INCLUDES[@]}"; do
    [[ "$path" == "$m" || "$path" == "$m"/* ]] && return 0
  done
  return 1
}

INCLUDE_RE='^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"])([^>"]+)[>"]'
violations=0
checked=0
report() {
  echo "$1: $2"
  violations=$((violations + 1))
}

check_file() {
  local file="$1" layer line text path quoted target a b pair
  layer_of_file "$file"
  layer="$LAYER"
  if [[ "$file" == include/treefold/detail/* ]]; then
    report "$file:0" "internals sit in their layer's folder (include/treefold/<layer>/detail/), not in include/treefold/detail/"
  fi
  if [[ "$file" == include/* || "$file" == src/* ]] && contains "$layer" "${COMPONENT_LAYERS[@]}"; then
    report "$file:0" "component '$layer' outside its folder (components/$layer/include/treefold/$layer/, components/$layer/src/)"
  fi
  while IFS= read -r match; do
    line="${match%%:*}"
    text="${match#*:}"
    [[ "$text" =~ $INCLUDE_RE ]] || continue
    quoted=0
    [[ "${BASH_REMATCH[1]}" == '"' ]] && quoted=1
    path="${BASH_REMATCH[2]}"
    layer_of_include "$file" "$path" "$quoted"
    target="$LAYER"
    if contains "$layer" "${MPI_FREE_LAYERS[@]}"; then
      if is_mpi_include "$path"; then
        report "$file:$line" "MPI-free layer '$layer' includes <$path>"
        continue
      elif [[ -n "$target" ]] && { contains "$target" "${NETWORK_LAYERS[@]}" || contains "$target" "${NETWORK_FILES[@]}"; }; then
        report "$file:$line" "MPI-free layer '$layer' includes $path (layer '$target')"
        continue
      fi
    fi
    for pair in "${SEPARATED[@]}"; do
      read -r a b <<<"$pair"
      if [[ ( "$layer" == "$a" && "$target" == "$b" ) || ( "$layer" == "$b" && "$target" == "$a" ) ]]; then
        report "$file:$line" "layer '$layer' includes $path (layer '$target'; $a and $b are kept apart)"
        continue 2
      fi
    done
    if [[ -n "$layer" && -n "$target" ]] && contains "$target" "${COMPONENT_LAYERS[@]}" \
       && ! contains "$layer" "${COMPONENT_LAYERS[@]}" && ! contains "$layer" "${ABOVE_COMPONENTS[@]}"; then
      report "$file:$line" "core '$layer' includes $path (component '$target')"
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' "$ROOT/$file")
  checked=$((checked + 1))
}

while IFS= read -r file; do
  check_file "$file"
done < <(cd "$ROOT" && find include/treefold src components -type f -regextype posix-extended -regex "$SOURCE_GLOB" 2>/dev/null | LC_ALL=C sort)

if ((checked == 0)); then
  echo "check_layering: no source files under $ROOT/include/treefold or $ROOT/src" >&2
  exit 2
fi
if ((violations > 0)); then
  echo "check_layering: $violations violation(s) in $checked files under $ROOT"
  exit 1
fi
echo "check_layering: $checked files under $ROOT, no violations"
