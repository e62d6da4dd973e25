# Shared by the scripts/ entry points: paths, build directory and mpirun flags.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"
# Open MPI refuses root and more ranks than cores unless told; this machine has 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --mca mpi_yield_when_idle 1)

# configure_and_build <build-dir> <build-type> [cmake args...]
configure_and_build() {
  local dir="$1" type="$2"
  shift 2
  cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS"
}
