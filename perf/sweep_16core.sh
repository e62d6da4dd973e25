#!/usr/bin/env bash
# The 16-core figures in one run (doc/performance.md, "On 16 real cores"): reduction_bench over
# N = 8 ... 21,410,970 at p = 2, 4, 8, 16 with every core exchange, automatic (the CSV names
# the exchange it chose), the fast-math and the local-sums baselines and MPI_Allreduce of one
# double; then p = 1 at small N, the call breakdown at p = 1 and 2 and the small-node kernels.
#
#   perf/sweep_16core.sh BIN_DIR DATA_DIR OUT_DIR
#
# BIN_DIR holds reduction_bench, call_breakdown and kernel_bench (a Release build without
# -march=native; ../shared/tools/device-bundle packs them into .device/bin). N = 460, 239,763
# and 504,850 are the data sets 354, dna_rokasD4 and aa_rokasA8 of DATA_DIR/psllh; the others
# synthetic log-likelihoods. Every run writes its lines as it ends, so a run stopped at its
# limit keeps what it measured.
set -uo pipefail
bin="$1"; data="$2"; out="$3"
mkdir -p "$out"
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
mpirun=(mpirun --bind-to core --map-by core)
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{
  date -u +%FT%TZ; uname -a; nproc; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket|NUMA|L2|L3' || true
  mpirun --version | head -1
} > "$out/machine.txt"
input() { # N -> reduction_bench's input options
  case "$1" in
    460) echo "--file $data/psllh/354.binpsllh" ;;
    239763) echo "--file $data/psllh/dna_rokasD4.binpsllh" ;;
    504850) echo "--file $data/psllh/aa_rokasA8.binpsllh" ;;
    *) echo "--n $1 --kind loglik" ;;
  esac
}
reps() { # N -> timed calls (about a second of calls per method at p = 2)
  if (( $1 <= 10000 )); then echo "2000 100"; elif (( $1 <= 1000000 )); then echo "400 20";
  elif (( $1 <= 3000000 )); then echo "200 10"; else echo "40 4"; fi
}
header=""
csv="$out/sweep.csv"
for p in 2 4 8 16; do
  for n in 8 64 460 1602 10000 239763 504850 2097152 21410970; do
    read -r r d <<<"$(reps "$n")"
    # shellcheck disable=SC2046 # input's words
    timeout 60 "${mpirun[@]}" -n "$p" "$bin/reduction_bench" $(input "$n") --modes treefold,fast,baseline,allreduce1 \
      --exchanges core --reps "$r" --discard "$d" $header >> "$csv" 2>> "$out/errors.txt" ||
      echo "p=$p n=$n: exit $?" >> "$out/errors.txt"
    header="--no-header"
  done
done
# p = 1 (one rank alone; MPI_Allreduce over one rank is a copy).
for n in 64 460 1602 4096; do
  timeout 60 "${mpirun[@]}" -n 1 "$bin/reduction_bench" $(input "$n") --modes treefold,fast,baseline,allreduce1 \
    --exchanges native,schedule_rd,automatic --reps 4000 --discard 200 --no-header >> "$csv" 2>> "$out/errors.txt" ||
    echo "p=1 n=$n: exit $?" >> "$out/errors.txt"
done
for p in 1 2; do
  for n in 64 460 4096; do
    timeout 60 "${mpirun[@]}" -n "$p" "$bin/call_breakdown" --n "$n" --rounds 9 >> "$out/breakdown.txt" 2>&1 ||
      echo "breakdown p=$p n=$n: exit $?" >> "$out/errors.txt"
  done
done
timeout 120 "$bin/kernel_bench" --sizes=small --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
  --benchmark_filter='fastmath|best' > "$out/kernel_small.txt" 2>> "$out/errors.txt" ||
  echo "kernel_bench: exit $?" >> "$out/errors.txt"
date -u +%FT%TZ >> "$out/machine.txt"
