#!/usr/bin/env bash
# The MPI is chosen through FindMPI's hints, and a Boost.MPI built against another MPI than the
# chosen one is refused at configure time with one message naming both (configure only).
# Stand-ins for Boost.MPI libraries: archives whose only object calls MPI the way each family's
# compiled code does (Open MPI names its handles' symbols, ompi_mpi_comm_world; MPICH's handles
# are integers, so only MPI_ functions appear). With MPICH's wrappers installed (scripts/setup
# --mpich), the same the other way round, and MPICH without any Boost.MPI for it.
# Usage: check_mpi_choice.sh <source dir> <scratch dir> <C or C++ compiler (it compiles C here)>
set -u
src="$1"; work="$2"; cc="$3"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
rm -rf "$work"; mkdir -p "$work"
printf 'extern int ompi_mpi_comm_world;\nint MPI_Init(int*, char***);\nint use(void) { return MPI_Init(0, 0) + ompi_mpi_comm_world; }\n' >"$work/ompi.c"
printf 'int MPI_Init(int*, char***);\nint MPI_Comm_rank(int, int*);\nint use(void) { int r; return MPI_Init(0, 0) + MPI_Comm_rank(0x44000000, &r); }\n' >"$work/mpich.c"
for kind in ompi mpich; do
  "$cc" -x c -c "$work/$kind.c" -o "$work/$kind.o" && ar rcs "$work/libboost_mpi_$kind.a" "$work/$kind.o" ||
    { fail "could not make the $kind stand-in"; exit 1; }
done
configure() { # configure <dir> [cmake args...]: 0 when it configured
  local dir="$1"; shift
  cmake -S "$src" -B "$work/$dir" -DTREEFOLD_FORTRAN=OFF -DTREEFOLD_PYTHON=OFF -DTREEFOLD_BUILD_CLI=OFF "$@" >"$work/$dir.log" 2>&1
}
one_message() { # one_message <dir> <pattern>...: the log holds one CMake error, with every pattern
  local dir="$1"; shift
  local errors; errors="$(grep -c "CMake Error" "$work/$dir.log")"
  [[ "$errors" == 1 ]] || { fail "$dir: $errors CMake errors: $(head -20 "$work/$dir.log")"; return; }
  local text; text="$(tr -s ' \n' ' ' <"$work/$dir.log")"
  for pattern in "$@"; do
    [[ "$text" == *"$pattern"* ]] || { fail "$dir: the message lacks '$pattern': $text"; return; }
  done
  pass "$dir refused: $(grep -A3 "CMake Error" "$work/$dir.log" | tail -3 | tr -s ' \n' ' ')"
}

# The default MPI (Open MPI on Debian) with its own Boost.MPI configures.
configure default && grep -q "treefold: MPI Open MPI" "$work/default.log" && pass "Open MPI with Debian's Boost.MPI" ||
  fail "the default configure: $(tail -5 "$work/default.log")"
# ... an Open MPI-built stand-in is accepted, an MPICH-built one refused naming both.
configure ompi-ompi -DTREEFOLD_BOOST_MPI="$work/libboost_mpi_ompi.a" && pass "Open MPI with an Open MPI Boost.MPI" ||
  fail "Open MPI with an Open MPI-built Boost.MPI was refused: $(grep -A5 'CMake Error' "$work/ompi-ompi.log")"
if configure ompi-mpich -DTREEFOLD_BOOST_MPI="$work/libboost_mpi_mpich.a"; then
  fail "Open MPI with an MPICH-built Boost.MPI was accepted"
else
  one_message ompi-mpich "built against MPICH" "the MPI chosen is Open MPI" "libboost_mpi_mpich.a" "TREEFOLD_BOOST_MPI"
fi

# MPICH chosen by FindMPI's hint: refused with Open MPI's Boost.MPI, and without one for it.
if command -v mpicxx.mpich >/dev/null; then
  if configure mpich-ompi -DMPI_CXX_COMPILER=mpicxx.mpich -DTREEFOLD_BOOST_MPI="$work/libboost_mpi_ompi.a"; then
    fail "MPICH with an Open MPI-built Boost.MPI was accepted"
  else
    one_message mpich-ompi "built against Open MPI" "the MPI chosen is MPICH" "mpicxx.mpich"
  fi
  if configure mpich-none -DMPI_CXX_COMPILER=mpicxx.mpich -DTREEFOLD_DEPS_DIR="$work/no-deps"; then
    fail "MPICH without a Boost.MPI for it was accepted"
  else
    one_message mpich-none "no Boost.MPI built against it" "scripts/setup --mpich"
  fi
else
  echo "(no mpicxx.mpich: the MPICH-chosen cases are skipped; scripts/setup --mpich installs it)"
fi
rm -rf "$work"
[[ $failures -eq 0 ]]
