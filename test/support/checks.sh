# Sourced by the end-to-end check scripts after they set `mpiexec`: a scratch folder removed
# on exit ($work), mpirun with the suite's flags, pass/fail counters, and finish NAME, which
# prints the counts and fails when anything failed (the script's last command).
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
# The launcher and its flags come from the configuration (TREEFOLD_MPIRUN, set by ctest:
# cmake/TreefoldMpiTest.cmake); the bare mpiexec argument where it is not set.
read -ra mpirun <<<"${TREEFOLD_MPIRUN:-$mpiexec}"
failures=0; passes=0
pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
finish() { echo "$1: $passes passed, $failures failed"; [[ $failures -eq 0 ]]; }
