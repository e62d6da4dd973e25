#!/usr/bin/env bash
# accurate_bench end to end: five time rows per size, the error rows identical at p = 1 and
# p = 2, the accurate sum correctly rounded (0 ulp) on every data set and on 1e16 + 1 - 1e16,
# and a bad option exiting 2.
#   check_accurate_bench.sh BENCH MPIEXEC DATA_DIR
set -euo pipefail
bench="$1" mpiexec="$2" data="$3"
read -ra mpirun <<<"${TREEFOLD_MPIRUN:-$mpiexec}" # the configuration's launcher and flags (ctest sets it)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check_accurate_bench: $*" >&2; exit 1; }

for p in 1 2; do
  "${mpirun[@]}" -n $p "$bench" --sizes 1000,4097 --reps 3 --data "$data" >"$work/p$p.csv"
  rows=$(grep -c '^time,' "$work/p$p.csv" || true)
  [[ "$rows" == 10 ]] || fail "p = $p: $rows time rows, want 10"
  grep '^error,' "$work/p$p.csv" | cut -d, -f2,4- >"$work/errors_p$p"
done
cmp -s "$work/errors_p1" "$work/errors_p2" || fail "error rows differ between p = 1 and p = 2"
# error,input,p,N,condition,exact,ulps_plain_tree,ulps_accumulate,ulps_accurate,...
bad=$(grep '^error,' "$work/p1.csv" | grep -v ',cond~' | awk -F, '$9 != 0 { print $2 }')
[[ -z "$bad" ]] || fail "accurate sum not correctly rounded on: $bad"
if [[ -d "$data" ]]; then
  sets=$(grep -c '^error,[^,]*,1,[0-9]*,1,' "$work/p1.csv" || true)
  (( sets > 0 )) || fail "no data-set rows although $data exists"
fi
set +e
"${mpirun[@]}" -n 1 "$bench" --reps 0 >/dev/null 2>&1
rc=$?
set -e
[[ "$rc" == 2 ]] || fail "--reps 0 exited $rc, want 2"
echo "check_accurate_bench: ok"
