#!/usr/bin/env bash
# `treefold schedule` end to end: the generated schedules (treefold's and the thesis's
# heuristics, the best in both spaces) with model/simulated times, message counts and
# efficiency, the receive-cost option, constants files, given schedules, and bad input
# exiting 2.
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

for row in 'thesis sorted' 'thesis unsorted' 'best thesis space'; do
  grep -q "^$row " <<<"$out" || fail "no '$row' row"
done

# The thesis's Table 5.2 at p = 11 (alpha_p/alpha_r = 2.911, Fig. 5.6): Algorithm 7 keeps the
# single stage 11 at 91.6 %, the best in its space is pmerge(2) 3 3 psplit.
out="$("$tool" schedule --p 11 --alpha-p 2.911 --alpha-r 1)" || fail "schedule --p 11 exited $?"
echo "$out"
grep -Eq '^thesis sorted +11 +1 +110 +12\.911 +12\.911 +91\.6%' <<<"$out" || fail "thesis sorted row for p = 11"
grep -Eq '^best thesis space +pmerge\(2\) 3 3 psplit +2 +48 +11\.822 ' <<<"$out" || fail "best thesis space row for p = 11"

# The collapse stage costs alpha_p + alpha_r by default, alpha_p + (B-1) alpha_r with conflicts.
out="$("$tool" schedule --p 6 --schedule 'collapse(6,3) 2 expand')" || fail "collapse run exited $?"
grep -Eq '^given +collapse\(6,3\) 2 expand +3 +10 +4\.160 ' <<<"$out" || fail "collapse under the thesis's model"
out="$("$tool" schedule --p 6 --receives conflicts --schedule 'collapse(6,3) 2 expand')" || fail "conflicts run exited $?"
grep -q 'receives conflicts' <<<"$out" || fail "receive model not named"
grep -Eq '^given +collapse\(6,3\) 2 expand +3 +10 +4\.540 ' <<<"$out" || fail "collapse with receive conflicts"

printf '# test\nalpha_p 5\nalpha_r 0.1\n' > "$work/cal.txt"
out="$("$tool" schedule --p 1000 --constants "$work/cal.txt" --schedule 'merge(488) 8 8 8 invmerge' --schedule '10 10 10')" \
  || fail "constants run exited $?"
echo "$out"
grep -q 'alpha_p = 5 us, alpha_r = 0.1 us' <<<"$out" || fail "constants values not used"
grep -q '^given  *merge(488) 8 8 8 invmerge' <<<"$out" || fail "given merge schedule not listed"
grep -q '^given  *10 10 10 ' <<<"$out" || fail "given factor schedule not listed"

# Message size: with 1e-3 us per byte, p = 16 multiplies 4 4 at 8 B and doubles at 64 KiB.
out="$("$tool" schedule --p 16 --beta 0.001 --bytes 8)" || fail "--bytes 8 exited $?"
grep -Eq '^best +4 4 +2 ' <<<"$out" || fail "best at 8 B with beta"
out="$("$tool" schedule --p 16 --beta 0.001 --bytes 65536)" || fail "--bytes 65536 exited $?"
echo "$out"
grep -q 'messages of 65536 B' <<<"$out" || fail "message size not named"
grep -q 'alpha_r = 65.916 us' <<<"$out" || fail "alpha_r at 64 KiB"
grep -Eq '^best +2 2 2 2 +4 ' <<<"$out" || fail "best at 64 KiB with beta"
# A size constants file (schedule_fit --sizes): the step above the eager limit applies.
printf 'alpha_p 0.3\nalpha_r 0.1\nbeta 0\neager_limit 4032\nrendezvous_p 0\nrendezvous_r 2\nrendezvous_beta 0\n' > "$work/size.txt"
out="$("$tool" schedule --p 16 --constants "$work/size.txt" --bytes 4096)" || fail "size constants run exited $?"
grep -q 'alpha_r = 2.1 us' <<<"$out" || fail "rendezvous step not applied at 4096 B"
out="$("$tool" schedule --p 16 --constants "$work/size.txt" --bytes 4032)" || fail "size constants run exited $?"
grep -q 'alpha_p = 0.3 us, alpha_r = 0.1 us' <<<"$out" || fail "eager size charged the step"

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
expect_bad "not both" --p 4 --constants "$work/cal.txt" --alpha-p 1
expect_bad "required" --alpha-p 1
expect_bad "file '$work/missing.txt' does not exist" --p 4 --constants "$work/missing.txt"
# One prefix: "treefold schedule: file ...", not "treefold schedule: treefold: ...".
msg="$("$tool" schedule --p 4 --constants "$work/missing.txt" 2>&1)"
[[ "$msg" != *"treefold: "* ]] || fail "doubled prefix: $msg"
printf 'alpha_p 1e400\nalpha_r 1\n' > "$work/huge.txt"
expect_bad "no number after 'alpha_p'" --p 4 --constants "$work/huge.txt"
expect_bad "'free' or 'conflicts'" --p 4 --receives both
expect_bad "--bytes must be" --p 4 --bytes 0
expect_bad "not both" --p 4 --constants "$work/cal.txt" --beta 1
printf 'alpha_p 1\nalpha_r 1\nbeta -1\n' > "$work/negbeta.txt"
expect_bad "beta finite and >= 0" --p 4 --constants "$work/negbeta.txt"
expect_bad "at least two factor stages" --p 7 --schedule "pmerge(1) 6 psplit"
"$tool" schedule --p 4 --constants "$work/missing.txt" >/dev/null 2>&1; rc=$?
[[ $rc -ne 0 ]] || fail "missing constants file accepted"

[[ $failures -eq 0 ]] && echo "all schedule CLI checks passed"
exit $((failures > 0))
