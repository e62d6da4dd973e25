#!/usr/bin/env bash
# check_cg.sh MPIEXEC CG_POISSON: the CG solve (examples/cg_poisson.cpp) at p = 1 .. 8 with even
# blocks and at p = 3, 4, 7 with ragged ones. With treefold's dot products the iteration count, the
# bits of every residual norm and of the solution must be the same for every run (all three
# algorithms); with local sums + MPI_Allreduce they must differ between some runs. The grid is
# the first of 16, 20, 24 where they do (a grid where every run happened to agree would show
# nothing), so the test shows the difference instead of assuming it.
set -u
mpiexec=$1
read -ra mpirun <<<"${TREEFOLD_MPIRUN:-$mpiexec}" # the configuration's launcher and flags (ctest sets it)
prog=$2
runs=("1 even" "2 even" "3 even" "4 even" "5 even" "6 even" "7 even" "8 even" "3 ragged" "4 ragged" "7 ragged")

signature() { # lines with one dots/algo -> distinct (iterations, residual bits, solution bits)
  sed -E 's/.*(iterations=[0-9]+ residual_bits=[0-9a-f]+ solution_bits=[0-9a-f]+).*/\1/' | sort -u
}

for grid in 16 20 24; do
  all=""
  for run in "${runs[@]}"; do
    set -- $run
    if ! lines=$("${mpirun[@]}" -n "$1" "$prog" --grid "$grid" --split "$2" --tol 1e-10); then
      echo "FAIL: cg_poisson exited with an error at p=$1 split=$2 grid=$grid"
      exit 1
    fi
    if [ "$(grep -c '^cg ' <<<"$lines")" -ne 9 ]; then
      echo "FAIL: expected 9 result lines at p=$1 split=$2 grid=$grid, got:"
      echo "$lines"
      exit 1
    fi
    all+="$lines"$'\n'
  done
  echo "grid $grid:"
  echo -n "$all"
  for algo in cg cg1 pipecg; do
    mine=$(grep "dots=treefold algo=$algo " <<<"$all")
    if [ "$(signature <<<"$mine" | wc -l)" -ne 1 ]; then
      echo "FAIL: treefold $algo differs between process counts or splits:"
      signature <<<"$mine"
      exit 1
    fi
    if grep -q "relres=[0-9.]*e-0" <<<"$mine" || ! grep -q "relres=[0-9.]*e-1[0-9]" <<<"$mine"; then
      echo "FAIL: treefold $algo did not converge to 1e-10"
      exit 1
    fi
  done
  distinct=$(grep "dots=allreduce algo=cg " <<<"$all" | signature | wc -l)
  echo "treefold: one result for all ${#runs[@]} runs (cg, cg1, pipecg); allreduce cg: $distinct distinct results"
  if [ "$distinct" -gt 1 ]; then
    echo "PASS"
    exit 0
  fi
  echo "allreduce agreed at every p on grid $grid; trying a larger grid"
done
echo "FAIL: local sums + MPI_Allreduce agreed at every p on every grid tried: the test shows nothing"
exit 1
