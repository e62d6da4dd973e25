#!/usr/bin/env bash
# `treefold schedule` end to end: the three schedules with model/simulated times and
# message counts, calibration files, given schedules, and bad input exiting 2.
# Usage: check_schedule_cli.sh <treefold binary>
set -u
tool="$1"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

out="$("$tool" schedule --p 64 --alpha-p 0.88 --alpha-r 0.38)" || fail "schedule --p 64 exited $?"
echo "$out"
grep -q '^recursive doubling  *2 2 2 2 2 2  *6  *384 ' <<<"$out" || fail "recursive doubling row for p = 64"
grep -q '^heuristic ' <<<"$out" || fail "no heuristic row"
grep -q '^best ' <<<"$out" || fail "no best row"
grep -q 'b_opt = ' <<<"$out" || fail "no b_opt line"
# p = 64 = 4^3: best is 4 4 4 with (0.88 + 3*0.38)*3 = 6.06 us modelled and simulated.
grep -Eq '^best +4 4 4 +3 +576 +6\.060 +6\.060' <<<"$out" || fail "best row for p = 64"

printf '# test\nalpha_p 5\nalpha_r 0.1\n' > "$work/cal.txt"
out="$("$tool" schedule --p 1000 --calibration "$work/cal.txt" --schedule 'merge(488) 8 8 8 invmerge' --schedule '10 10 10')" \
  || fail "calibration run exited $?"
echo "$out"
grep -q 'alpha_p = 5 us, alpha_r = 0.1 us' <<<"$out" || fail "calibration values not used"
grep -q '^given  *merge(488) 8 8 8 invmerge' <<<"$out" || fail "given merge schedule not listed"
grep -q '^given  *10 10 10 ' <<<"$out" || fail "given factor schedule not listed"

expect_bad() { # expect_bad <needle> <args...>
  local needle="$1"; shift
  local msg; msg="$("$tool" schedule "$@" 2>&1)"; local rc=$?
  [[ $rc -eq 2 ]] || fail "'$*' exited $rc, want 2"
  grep -q -- "$needle" <<<"$msg" || fail "'$*' said '$msg', want '$needle'"
}
expect_bad "does not fit p = 12" --p 12 --schedule "2 2 2"
expect_bad "unknown stage 'x'" --p 12 --schedule "2 x"
expect_bad "alpha_r > 0" --p 12 --alpha-r 0
expect_bad "between 1 and" --p 0
expect_bad "not both" --p 4 --calibration "$work/cal.txt" --alpha-p 1
expect_bad "required" --alpha-p 1
expect_bad "file '$work/missing.txt' does not exist" --p 4 --calibration "$work/missing.txt"
# One prefix: "treefold schedule: file ...", not "treefold schedule: treefold: ...".
msg="$("$tool" schedule --p 4 --calibration "$work/missing.txt" 2>&1)"
[[ "$msg" != *"treefold: "* ]] || fail "doubled prefix: $msg"
printf 'alpha_p 1e400\nalpha_r 1\n' > "$work/huge.txt"
expect_bad "no number after 'alpha_p'" --p 4 --calibration "$work/huge.txt"

[[ $failures -eq 0 ]] && echo "all schedule CLI checks passed"
exit $((failures > 0))
