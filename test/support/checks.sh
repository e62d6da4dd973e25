# Sourced by the end-to-end check scripts after they set `mpiexec`: a scratch folder removed
# on exit ($work), mpirun with the suite's flags, pass/fail counters, and finish NAME, which
# prints the counts and fails when anything failed (the script's last command).
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mpirun=("$mpiexec" --oversubscribe --mca mpi_yield_when_idle 1)
failures=0; passes=0
pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
finish() { echo "$1: $passes passed, $failures failed"; [[ $failures -eq 0 ]]; }
