#!/usr/bin/env bash
# Before/after check of a refactor: runs reduction_bench and osu_reduce (reduce and
# allreduce) of two Release builds in one interleaved run at p = 2 and prints, per method and
# size, the median over rounds of each round's median, and the ratio new/base.
#
#   perf/compare_builds.sh BASE_BUILD_DIR NEW_BUILD_DIR [ROUNDS] [SUITE]   (default 7 rounds)
#
# SUITE `rows` runs only row_reducer (reduction_bench's rows mode, widths 3 and 17, N = 100, 10^4 and
# 10^6 rows) beside the reducer on N doubles in the same run, as an in-run reference.
#
# Each build dir must hold perf/reduction_bench and perf/osu_reduce (configure with
# -DTREEFOLD_BUILD_PERF=ON). Inputs: the 354 and dna_rokasD4 data sets where present in
# ../shared/data/psllh, and a synthetic N = 2^21.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
base="$1" new="$2" rounds="${3:-7}" suite="${4:-all}"
out="$(mktemp -d)"
data="$ROOT/../shared/data/psllh"
mpi=(mpirun --oversubscribe) # p = 2 fits the cores: no yielding
run_rows() { # run_rows <label> <build> <round>
  local label="$1" b="$2/perf" r="$3" header=()
  for n in 100 10000 1000000; do
    for k in 3 17; do
      local reps=200 discard=10
      (( n < 10000 )) && reps=1000 discard=50
      (( n > 10000 )) && reps=40 discard=4
      "${mpi[@]}" -n 2 "$b/reduction_bench" --n "$n" --kind mixed --modes rows,treefold --exchanges direct,binomial \
        --width "$k" --reps "$reps" --discard "$discard" "${header[@]}" >>"$out/rb_${label}_$r.csv"
      header=(--no-header)
    done
  done
}
run_one() { # run_one <label> <build> <round>
  local label="$1" b="$2/perf" r="$3"
  if [[ "$suite" == rows ]]; then
    run_rows "$@"
    return
  fi
  local exch=direct,binomial,fibonacci,binary,dual4,one_sided,schedule_rd,schedule_best,native,automatic
  if [[ -f "$data/354.binpsllh" ]]; then
    "${mpi[@]}" -n 2 "$b/reduction_bench" --file "$data/354.binpsllh" --modes treefold,allreduce1 \
      --exchanges "$exch" --reps 2000 --discard 50 >"$out/rb_${label}_$r.csv"
  fi
  if [[ -f "$data/dna_rokasD4.binpsllh" ]]; then
    "${mpi[@]}" -n 2 "$b/reduction_bench" --file "$data/dna_rokasD4.binpsllh" --modes treefold \
      --exchanges "$exch" --reps 100 --discard 8 --no-header >>"$out/rb_${label}_$r.csv"
  fi
  "${mpi[@]}" -n 2 "$b/reduction_bench" --n 2097152 --modes treefold --exchanges direct,binomial,schedule_best \
    --reps 40 --discard 4 --no-header >>"$out/rb_${label}_$r.csv"
  "${mpi[@]}" -n 2 "$b/osu_reduce" --max 65536 --csv-only >"$out/osu_${label}_$r.csv"
  "${mpi[@]}" -n 2 "$b/osu_reduce" --max 65536 --allreduce --csv-only >"$out/osua_${label}_$r.csv"
}
for r in $(seq 1 "$rounds"); do
  # Alternate the order so neither build always runs first.
  if (( r % 2 )); then run_one base "$base" "$r"; run_one new "$new" "$r"
  else run_one new "$new" "$r"; run_one base "$base" "$r"; fi
done
python3 - "$out" <<'EOF'
import csv, glob, statistics, sys, collections
out = sys.argv[1]
def load(prefix, label, key):
    d = collections.defaultdict(list)
    for f in glob.glob(f"{out}/{prefix}_{label}_*.csv"):
        for row in csv.DictReader(l for l in open(f) if not l.startswith('#')):
            d[key(row)].append(float(row['median_us']))
    return d
tables = [("rb", lambda r: (r['n'], r['mode'], r['exchange'])),
          ("osu", lambda r: ('reduce', r['method'], int(r['bytes']))),
          ("osua", lambda r: ('allreduce', r['method'], int(r['bytes'])))]
print("what,base_us,new_us,new/base")
for prefix, key in tables:
    b, n = load(prefix, "base", key), load(prefix, "new", key)
    for k in sorted(b):
        if k in n:
            mb, mn = statistics.median(b[k]), statistics.median(n[k])
            print(f"{'/'.join(map(str, k))},{mb:.3f},{mn:.3f},{mn / mb:.2f}")
EOF
rm -rf "$out"
