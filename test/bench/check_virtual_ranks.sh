#!/usr/bin/env bash
# reproducibility_sweep's virtual ranks against real ones: treefold's virtual bits equal the
# real run's at p = 1..4 (two distributions) and are the same for every p up to 4096.
# Usage: check_virtual_ranks.sh <reproducibility_sweep> <mpiexec>
set -u
sweep="$1"; mpiexec="$2"
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"

for dist in even-lower aligned:0.5; do
  input=(--n 3001 --kind mixed --distribution "$dist")
  "$sweep" "${input[@]}" --virtual 1,2,3,4,17,241,1024,4096 >"$work/virtual.csv" 2>"$work/err" \
    && pass || fail "virtual run ($dist) failed: $(cat "$work/err")"
  : >"$work/real.csv"
  for p in 1 2 3 4; do
    "${mpirun[@]}" -n $p "$sweep" "${input[@]}" --no-header >>"$work/real.csv" 2>"$work/err" \
      || fail "real run p = $p ($dist) failed: $(cat "$work/err")"
  done
  real_rows=$(awk -F, '$7 == "treefold"' "$work/real.csv" | wc -l)
  [[ "$real_rows" == 4 ]] && pass || fail "$dist: $real_rows real treefold rows, expected 4"
  for p in 1 2 3 4; do
    real=$(awk -F, -v p=$p '$1 == "real" && $2 == p && $7 == "treefold" { print $9 }' "$work/real.csv")
    virt=$(awk -F, -v p=$p '$1 == "virtual" && $2 == p && $7 == "treefold" { print $9 }' "$work/virtual.csv")
    [[ -n "$real" && "$real" == "$virt" ]] && pass || fail "$dist p = $p: virtual treefold '$virt', real '$real'"
  done
  bits=$(awk -F, '$7 == "treefold" { print $9 }' "$work/virtual.csv" | sort -u)
  rows=$(awk -F, '$7 == "treefold"' "$work/virtual.csv" | wc -l)
  [[ "$rows" == 8 && $(wc -l <<<"$bits") == 1 ]] && pass || fail "$dist: virtual treefold over 8 p ($rows rows): $(echo $bits)"
  # The check can fail: the virtual baseline moves with p on the mixed input.
  base=$(awk -F, '$7 == "baseline" { print $9 }' "$work/virtual.csv" | sort -u | wc -l)
  [[ "$base" -gt 1 ]] && pass || fail "$dist: virtual baseline gave one bit pattern over p"
  # The assumed MPI_Allreduce order is reported, not required (another MPI may combine otherwise).
  same=0
  for p in 1 2 3 4; do
    real=$(awk -F, -v p=$p '$2 == p && $7 == "baseline" { print $9 }' "$work/real.csv")
    virt=$(awk -F, -v p=$p '$2 == p && $7 == "baseline" { print $9 }' "$work/virtual.csv")
    [[ "$real" == "$virt" ]] && same=$((same + 1))
  done
  echo "note: $dist: the virtual baseline (recursive doubling assumed) equals the real one at $same of p = 1..4"
done

# Bad input exits 2 with a message.
"$sweep" --n 10 --virtual 0 >/dev/null 2>"$work/err"; rc=$?
[[ $rc == 2 ]] && grep -q "bad p" "$work/err" && pass || fail "--virtual 0: exit $rc, '$(cat "$work/err")'"

finish check_virtual_ranks
