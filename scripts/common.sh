# Shared by the scripts/ entry points: paths, build directory and the MPI launcher.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"
# Open MPI refuses root and more ranks than cores unless told; this machine has 2 cores.
# (Other implementations ignore OMPI_ variables.)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# use_mpi_of <build-dir>: MPIRUN (the launcher and its flags, as an array) for the MPI the
# build folder was configured with, from the treefold-mpi.txt its configure wrote
# (cmake/TreefoldDependencies.cmake: mpiexec from FindMPI, Open MPI's oversubscription flags
# only for Open MPI), with the environment it names exported. configure_and_build calls it.
use_mpi_of() {
  local file="$1/treefold-mpi.txt" line launcher="" environment=""
  [[ -f "$file" ]] || { echo "scripts: $file is missing (configure $1 first)" >&2; return 1; }
  while IFS= read -r line; do
    case "$line" in
      mpirun=*) launcher="${line#mpirun=}" ;;
      environment=*) environment="${line#environment=}" ;;
    esac
  done <"$file"
  [[ -n "$launcher" ]] || { echo "scripts: $file names no launcher" >&2; return 1; }
  read -ra MPIRUN <<<"$launcher"
  local pairs pair
  IFS=';' read -ra pairs <<<"$environment"
  for pair in "${pairs[@]}"; do
    [[ -n "$pair" ]] && export "${pair?}"
  done
  return 0
}

# Until a build folder is configured: the mpiexec on PATH, with Open MPI's flags when it is
# Open MPI's (the test CMake makes in TreefoldTesting.cmake).
if mpiexec --version 2>/dev/null | grep -qE "Open MPI|open-mpi|OpenRTE"; then
  MPIRUN=(mpiexec --oversubscribe --mca mpi_yield_when_idle 1)
else
  MPIRUN=(mpiexec)
fi
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

# configure_and_build <build-dir> <build-type> [cmake args...]: MPIRUN then starts that build's
# programs (use_mpi_of).
configure_and_build() {
  local dir="$1" type="$2"
  shift 2
  # shellcheck disable=SC2046 # none or one word
  cmake $(generator_args "$dir") -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
  use_mpi_of "$dir"
  cmake --build "$dir" -j "$JOBS"
}
