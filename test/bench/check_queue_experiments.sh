#!/usr/bin/env bash
# End-to-end checks of perf/queue_experiments: each experiment's CSV shape and counts, the
# queues' window size in the memory rows, and bad options exit 2.
# Usage: check_queue_experiments.sh <queue_experiments> <mpiexec>
set -u
bench="$1"; mpiexec="$2"
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
lines() { grep -c . "$1"; }

# 1. Latency: one summary row per (size, mode), one raw row per (size, mode, block).
"${mpirun[@]}" -n 2 "$bench" --experiment latency --sizes 8,100 --blocks 3 --raw "$work/lat_raw.csv" \
  >"$work/lat.csv" 2>"$work/err" && pass || fail "latency failed: $(cat "$work/err")"
[[ "$(head -1 "$work/lat.csv")" == "machine,p,mode,payload_bytes,blocks,median_us,p10_us,p90_us" ]] && pass ||
  fail "latency header is '$(head -1 "$work/lat.csv")'"
[[ $(lines "$work/lat.csv") == 7 && $(lines "$work/lat_raw.csv") == 19 ]] && pass ||
  fail "latency: expected 1 + 6 summary and 1 + 18 raw lines, got $(lines "$work/lat.csv") and $(lines "$work/lat_raw.csv")"
bad=$(awk -F, 'NR > 1 && ($2 != 2 || ($4 != 8 && $4 != 100) || $5 != 3 || $7 > $6 || $6 > $8)' "$work/lat.csv")
[[ -z "$bad" ]] && pass || fail "latency rows malformed: $bad"

# 2. Memory: the queues report their window (64 + 2 * 1024 * 32 bytes), send/recv none.
"${mpirun[@]}" -n 3 "$bench" --experiment memory --slot-bytes 32 --messages 4 >"$work/mem.csv" 2>"$work/err" &&
  pass || fail "memory failed: $(cat "$work/err")"
bad=$(awk -F, 'NR > 1 && ($2 != 3 || ($4 != "send_recv" && $7 != 65600) || ($4 == "send_recv" && $7 != 0))' "$work/mem.csv")
[[ $(lines "$work/mem.csv") == 4 && -z "$bad" ]] && pass || fail "memory rows wrong: $(cat "$work/mem.csv")"

# 3. Scaling: reps * producers * messages samples per mode, every one in the raw file.
"${mpirun[@]}" -n 3 "$bench" --experiment scaling --reps 2 --messages 3 --raw "$work/sc_raw.csv" >"$work/sc.csv" \
  2>"$work/err" && pass || fail "scaling failed: $(cat "$work/err")"
bad=$(awk -F, 'NR > 1 && ($2 != 3 || $5 != 2 || $6 != 3 || $8 != 12 || $10 > $9 || $9 > $11 || $11 > $12)' "$work/sc.csv")
[[ $(lines "$work/sc.csv") == 4 && -z "$bad" ]] && pass || fail "scaling rows wrong: $(cat "$work/sc.csv")"
[[ $(lines "$work/sc_raw.csv") == 37 ]] && pass || fail "scaling raw: expected 1 + 36 lines, got $(lines "$work/sc_raw.csv")"

# 4. Bad options exit 2 with a message naming the problem.
check_bad() { # check_bad <what the message names> <args...>
  local want="$1"
  shift
  "${mpirun[@]}" -n 2 "$bench" "$@" >/dev/null 2>"$work/err"
  local rc=$?
  [[ $rc == 2 ]] && grep -qF -- "$want" "$work/err" && pass || fail "$* gave exit $rc and '$(cat "$work/err")'"
}
check_bad "unknown --experiment" --experiment nope
check_bad "unknown mode" --modes rma_queue,carrier_pigeon
check_bad "multiple of 8" --experiment scaling --slot-bytes 12 --reps 1
check_bad "positive" --experiment scaling --reps 0
check_bad "--sizes: '-1' is not an unsigned integer" --experiment latency --sizes 16,-1

finish check_queue_experiments
