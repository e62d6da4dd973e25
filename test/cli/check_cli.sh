#!/usr/bin/env bash
# End-to-end checks of `treefold sum` and `treefold plan`.
# Usage: check_cli.sh <treefold binary> <mpiexec> <psllh data dir (may be absent)> [<version>]
set -u
tool="$1"; mpiexec="$2"; data="$3"; version="${4:-}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"

bits_at() { # bits_at <p> <args...>: the tree sum bits printed by rank 0
  local p="$1"; shift
  "${mpirun[@]}" -n "$p" "$tool" sum "$@" 2>&1 | sed -n 's/^tree sum bits *: *//p'
}

# 1. Same bits at p = 1..4 for the built-in workload, several exchanges and distributions.
ref="$(bits_at 1 --repeat 1)"
[[ "$ref" =~ ^[0-9A-F]{16}$ ]] && pass || fail "no bits printed for the built-in workload: '$ref'"
for p in 2 3 4; do
  for args in "--exchange direct" "--exchange binomial --distribution aligned:0.5" "--distribution power-of-two" \
              "--exchange fibonacci --distribution even-upper" "--exchange one_sided" "--exchange schedule_best"; do
    got="$(bits_at "$p" --repeat 1 $args)"
    [[ "$got" == "$ref" ]] && pass || fail "built-in workload p=$p $args gives $got, p=1 gives $ref"
  done
done

# 2. A text file and the same values as .binpsllh give the same bits; data set reference bits.
printf '1e16\n1\n-1e16\n  2.5  \n\n-0.0\n3e-310\n' > "$work/values.txt"
t="$(bits_at 3 "$work/values.txt" --repeat 1)"
t1="$(bits_at 1 "$work/values.txt" --repeat 1)"
[[ -n "$t" && "$t" == "$t1" ]] && pass || fail "text file bits differ across p: '$t' vs '$t1'"
if [[ -f "$data/reference_tree_sum.csv" ]]; then
  while IFS=, read -r file want; do
    [[ "$file" == file ]] && continue
    for p in 1 4; do
      got="$(bits_at "$p" "$data/$file" --repeat 1)"
      [[ "$got" == "$want" ]] && pass || fail "$file at p=$p: $got, reference $want"
    done
  done < "$data/reference_tree_sum.csv"
else
  echo "SKIPPED: data sets not found at $data"
fi

# 3. Bad input: one clear message and exit code 2, no hang (timeout catches a hang).
expect_bad() { # expect_bad <pattern> <args...>
  local pattern="$1"; shift
  local out rc
  out="$(timeout 60 "${mpirun[@]}" -n 3 "$tool" "$@" 2>&1)"; rc=$?
  if [[ $rc -eq 124 ]]; then fail "hang: $*"; return; fi
  if [[ $rc -ne 2 ]]; then fail "exit $rc (want 2): $*"; return; fi
  local n; n="$(grep -c "^treefold" <<<"$out")"
  grep -q -- "$pattern" <<<"$out" && [[ "$n" -eq 1 ]] && pass || fail "message for '$*' was: $out"
}
printf '1\n2\nabc\n' > "$work/bad.txt"
: > "$work/empty.txt"
printf '\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f' > "$work/lying.binpsllh"
printf '\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$work/truncated.binpsllh"
expect_bad "does not exist" sum "$work/missing.binpsllh"
expect_bad "line 3" sum "$work/bad.txt"
expect_bad "N = 0" sum "$work/empty.txt"
expect_bad "says N = 5" sum "$work/lying.binpsllh"
expect_bad "partial" sum "$work/truncated.binpsllh"
expect_bad "unrecognised option" sum --bogus
expect_bad "unknown exchange" sum --exchange ring
expect_bad "unknown distribution" sum --distribution halves
expect_bad "out FILE is required" calibrate --max-level 3
expect_bad "min-level" calibrate --out "$work/cal.txt" --min-level 5 --max-level 4

# 3b. calibrate: one line per level in the form TREEFOLD_CALIBRATION reads, and a sum that
# reads the file gives the same bits.
timeout 120 "${mpirun[@]}" -n 2 "$tool" calibrate --out "$work/cal.txt" --min-level 3 --max-level 10 >/dev/null 2>&1
lines="$(grep -v '^#' "$work/cal.txt" 2>/dev/null | grep -cE '^2 ([3-9]|10) 8 (native|binomial|direct|dual4|schedule_rd|schedule_best_sized)$')"
[[ "$lines" == 8 ]] && pass || fail "calibrate wrote $lines good lines of 8: $(cat "$work/cal.txt" 2>&1)"
got="$(TREEFOLD_CALIBRATION="$work/cal.txt" bits_at 2 --repeat 1 --exchange automatic)"
[[ "$got" == "$ref" ]] && pass || fail "sum with automatic and the calibration file gives $got, want $ref"
# The file names the MPI library it was timed under; under another one it is refused.
[[ "$(grep -c '^mpi [A-Za-z]' "$work/cal.txt")" == 1 ]] && pass || fail "calibrate named no MPI library: $(head -3 "$work/cal.txt")"
sed 's/^mpi .*/mpi Some Other MPI 1.0/' "$work/cal.txt" > "$work/cal_other.txt"
out="$(TREEFOLD_CALIBRATION="$work/cal_other.txt" timeout 60 "${mpirun[@]}" -n 2 "$tool" sum --repeat 1 --exchange automatic 2>&1)"
grep -q "timed under another MPI library" <<<"$out" && pass || fail "a calibration file of another MPI was not refused: $out"
# automatic says what it chose: "automatic -> <one of the exchanges sum offers>"; a named one itself.
chose="$("${mpirun[@]}" -n 2 "$tool" sum --repeat 1 2>&1 | sed -n 's/^exchange *: *//p')"
[[ "$chose" =~ ^automatic\ \-\>\ [a-z0-9_]+$ && "$chose" != "automatic -> automatic" ]] && pass ||
  fail "sum with automatic printed 'exchange : $chose', not what it chose"
named="$("${mpirun[@]}" -n 2 "$tool" sum --repeat 1 --exchange binomial 2>&1 | sed -n 's/^exchange *: *//p')"
[[ "$named" == binomial ]] && pass || fail "sum --exchange binomial printed 'exchange : $named'"
# Nothing is left for MPI_Finalize to free (MPICH names what is: "leaked handle pool objects";
# Boost.MPI's datatype for bool was one, from the checking agreement of every reducer).
for x in native direct; do
  out="$(timeout 60 "${mpirun[@]}" -n 2 "$tool" sum --repeat 1 --exchange "$x" 2>&1)"
  ! grep -qi 'leak' <<<"$out" && pass || fail "sum --exchange $x left MPI objects at MPI_Finalize: $(grep -i leak <<<"$out" | head -1)"
done

# 4. plan: no MPI needed; the counts match what the library computes and bad options exit 2.
out="$("$tool" plan --n 1024 --p 2 --distribution even-lower)"
grep -Eq '^even-lower +1 +512 +512' <<<"$out" && pass || fail "plan output: $out"
"$tool" plan --n 10 >/dev/null 2>&1; [[ $? -eq 2 ]] && pass || fail "plan without --p should exit 2"
"$tool" plan --n 0 --p 2 >/dev/null 2>&1; [[ $? -eq 2 ]] && pass || fail "plan with N = 0 should exit 2"

# 5. The front door: --version, --help everywhere, - for standard input, input errors exit 2
# with one message (issue 14), and what an audit fed it (issue 16): FIFOs, out-of-range
# numbers, NUL bytes.
out="$("$tool" --version)"; rc=$?
[[ $rc -eq 0 && "$out" =~ ^treefold\ [0-9]+\.[0-9]+\.[0-9]+$ ]] && pass || fail "--version: rc $rc, '$out'"
[[ -z "$version" || "$out" == "treefold $version" ]] && pass || fail "--version says '$out', project is $version"
for args in "plan:--t-send" "schedule:--constants" "sum:--exchange" "calibrate:--out" "simulate:--svg"; do
  cmd="${args%%:*}"; option="${args#*:}"
  out="$("$tool" "$cmd" --help 2>&1)"; rc=$?
  [[ $rc -eq 0 && "$out" == "usage: "*"treefold $cmd"* && "$out" == *"$option"* ]] && pass \
    || fail "$cmd --help: rc $rc, output: $out"
done
n="$(timeout 60 "${mpirun[@]}" -n 2 "$tool" sum --help 2>&1 | grep -c '^usage:')"
[[ "$n" == 1 ]] && pass || fail "sum --help at p = 2 printed usage $n times"

# - reads standard input: the same bits as the file.
got="$(timeout 60 "${mpirun[@]}" -n 2 "$tool" sum - --repeat 1 < "$work/values.txt" 2>&1 | sed -n 's/^tree sum bits *: *//p')"
[[ -n "$got" && "$got" == "$t1" ]] && pass || fail "sum - (stdin) gives '$got', the file gives '$t1'"
out="$(printf 'alpha_p 2\nalpha_r 0.5\n' | "$tool" schedule --p 8 --constants -)"
grep -q 'alpha_p = 2 us, alpha_r = 0.5 us' <<<"$out" && pass || fail "schedule --constants - : $out"

# Input errors of the commands without MPI: exit 2, one line, one "treefold" prefix.
expect_bad_serial() { # expect_bad_serial <pattern> <args...>
  local pattern="$1"; shift
  local out rc
  out="$(timeout 60 "$tool" "$@" 2>&1)"; rc=$?
  if [[ $rc -ne 2 ]]; then fail "exit $rc (want 2): $*: $out"; return; fi
  [[ "$(wc -l <<<"$out")" -eq 1 && "$out" != *"treefold: "* ]] && grep -q -- "$pattern" <<<"$out" && pass \
    || fail "message for '$*' was: $out"
}
expect_bad_serial "does not exist" schedule --p 4 --constants "$work/missing.txt"
expect_bad_serial "t-send must be a finite number >= 0, got -1" plan --n 10 --p 2 --t-send -1
expect_bad_serial "t-op must be a finite number >= 0" plan --n 10 --p 2 --t-op -0.5
expect_bad_serial "alpha-p must be a finite number >= 0" schedule --p 4 --alpha-p -1 --alpha-r 1
expect_bad_serial "alpha-r must be a finite number >= 0" schedule --p 4 --alpha-p 1 --alpha-r -2
expect_bad_serial "noise must be a finite number >= 0" schedule --p 4 --noise -1
expect_bad_serial "give at least one --exchange or --schedule" simulate --p 4
expect_bad_serial "exchange 'ring' runs no schedule" simulate --p 4 --exchange ring
expect_bad_serial "exchange 'native' runs no schedule" schedule --p 4 --exchange native
expect_bad_serial "rank must be below --p" schedule --p 4 --exchange direct --rank 4
expect_bad_serial "model must be pipelining, loggp or size" simulate --p 4 --exchange direct --model ideal
expect_bad_serial "beta must be a finite number >= 0" simulate --p 4 --exchange direct --model size --beta -1
expect_bad_serial "does not fit p = 3" simulate --p 3 --schedule "2 2"

# schedule --exchange: every rank's schedule, the totals and the one-process check.
out="$("$tool" schedule --p 5 --n 1000 --exchange direct)"
[[ "$(grep -c '^exchange direct, p 5, rank' <<<"$out")" -eq 5 ]] && grep -q '^check: every maximal node once' <<<"$out" \
  && pass || fail "schedule --exchange direct: $out"
out="$("$tool" schedule --p 5 --n 1000 --exchange schedule_rd --rank 3)"
[[ "$(grep -c '^exchange schedule_rd' <<<"$out")" -eq 1 ]] && grep -q 'send to rank' <<<"$out" && pass \
  || fail "schedule --exchange schedule_rd --rank 3: $out"

# simulate: the binomial reduce and broadcast at p = 4 with alpha_p 1, alpha_r 0.5 takes 6
# (hand-checked in test_task_graph), six messages; its timeline is an SVG document.
out="$("$tool" simulate --p 4 --exchange binomial --alpha-p 1 --alpha-r 0.5 --csv --svg "$work/svg")"
[[ "$out" == pipelining,4,4,binomial,6,6,* ]] && pass || fail "simulate binomial p = 4: $out"
svg="$work/svg/binomial_p4_n4.svg"
[[ -f "$svg" && "$(head -c 5 "$svg")" == "<?xml" && "$(tail -n 1 "$svg")" == "</svg>" ]] && pass || fail "simulate wrote no SVG timeline at $svg"

# Not a regular file: refused at once (a FIFO used to block rank 0 in open() for ever).
mkfifo "$work/fifo"
expect_bad "is a FIFO (named pipe), not a regular file" sum "$work/fifo"
expect_bad_serial "is a FIFO (named pipe), not a regular file" schedule --p 4 --constants "$work/fifo"
expect_bad "is a character device" sum /dev/zero
out="$(TREEFOLD_CALIBRATION="$work/fifo" timeout 60 "${mpirun[@]}" -n 2 "$tool" sum --repeat 1 --exchange automatic 2>&1)"; rc=$?
[[ $rc -eq 2 ]] && grep -q "TREEFOLD_CALIBRATION" <<<"$out" && pass || fail "TREEFOLD_CALIBRATION=FIFO: rc $rc: $out"
expect_bad "could not write" calibrate --out "$work" --min-level 1 --max-level 1

# Binary data, NUL bytes and out-of-range numbers in a text file.
printf '1\n2\x003\n' > "$work/nul.txt"
expect_bad "line 2: binary data (byte 0x00 at column 2), not a number per line; a .binpsllh file needs" sum "$work/nul.txt"
cp "$work/lying.binpsllh" "$work/binary.txt"
expect_bad "line 1: binary data" sum "$work/binary.txt"
printf 'al\x00pha\n' > "$work/nul_cal.txt"
expect_bad_serial "no number after 'al.x00pha'" schedule --p 4 --constants "$work/nul_cal.txt"
printf '1\n1e400\n' > "$work/big.txt"
expect_bad "line 2: '1e400' is out of the range of a double" sum "$work/big.txt"
printf '%s\n' 1 2 -1e400 > "$work/minus_big.txt"
expect_bad "line 3: '-1e400' is out of the range" sum "$work/minus_big.txt"
{ echo 1; head -c 2000000 /dev/zero | tr '\0' '7'; echo; } > "$work/digits.txt"
out="$(timeout 60 "${mpirun[@]}" -n 2 "$tool" sum "$work/digits.txt" 2>&1)"; rc=$?
out="$(grep '^treefold' <<<"$out")"
[[ $rc -eq 2 && ${#out} -lt 400 && "$out" == *"(2000000 characters)' is out of the range"* ]] && pass \
  || fail "a 2 MB line of digits: rc $rc, ${#out} characters: ${out:0:400}"
printf '1e-400\n3e-310\ninf\n' > "$work/small.txt"
got="$(bits_at 2 "$work/small.txt" --repeat 1)"
[[ "$got" == 7FF0000000000000 ]] && pass || fail "underflow and a written inf must be accepted: '$got'"

finish cli
