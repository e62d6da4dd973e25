# Shared by the scripts/ entry points: paths, build directory and mpirun flags.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"
# Open MPI refuses root and more ranks than cores unless told; this machine has 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --mca mpi_yield_when_idle 1)
# On one node Open MPI selects its ob1 messaging layer anyway, after probing UCX and the CM
# layer; naming it skips the probes: 0.25 s instead of 0.47 s per start at p = 2, and the test
# run starts MPI several hundred times. Exported, so ctest's runs inherit it; a value set outside wins.
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"

# The generator for <build-dir>: Ninja when installed (it schedules the build and answers the
# suites' one-target builds faster than make), unless the folder was configured with another.
# Prints the cmake arguments.
generator_args() {
  local cache="$1/CMakeCache.txt"
  if command -v ninja >/dev/null && { [[ ! -f "$cache" ]] || grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; }; then
    echo "-GNinja"
  fi
}

# configure_and_build <build-dir> <build-type> [cmake args...]
configure_and_build() {
  local dir="$1" type="$2"
  shift 2
  # shellcheck disable=SC2046 # none or one word
  cmake $(generator_args "$dir") -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS"
}
