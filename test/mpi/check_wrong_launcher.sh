#!/usr/bin/env bash
# A program built against one MPI and started by the other implementation's launcher ends with
# one line naming the cause and the fix and a non-zero status on every process, before
# MPI_Init (src/net/launcher.cpp); left alone, each process would run as a singleton, p = 1.
#  - the other launcher's variables, set by hand (no launcher needed): the status, the line,
#    printed only where the launcher's rank is 0; TREEFOLD_LAUNCHER_CHECK=0 lets it run;
#  - the other implementation's real launcher at p = 2, when installed: the status, one line,
#    no hang (60 s at most);
#  - this build's own launcher (TREEFOLD_MPIRUN) at p = 2 (the control): no refusal.
# With --every-rank the program initialises MPI itself (a user's program, no treefold main):
# each process finds itself alone after MPI_Init and refuses at the reducer's construction,
# so every process prints the line.
# Usage: check_wrong_launcher.sh <MPI built against: "Open MPI" or "MPICH"> <status wanted>
#        <the other implementation's launcher, or ""> [--every-rank] <program> [args...]
set -u
built="$1"; want="$2"; other_launcher="$3"; shift 3
every_rank=0
if [[ "${1:-}" == --every-rank ]]; then
  every_rank=1
  shift
fi
program=("$@")
mpiexec=mpiexec
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
case "$built" in
  "Open MPI") other=MPICH; fake=(HYDI_CONTROL_FD=7 PMI_SIZE=2); rank_var=PMI_RANK ;;
  MPICH) other="Open MPI"; fake=(OMPI_COMM_WORLD_SIZE=2); rank_var=OMPI_COMM_WORLD_RANK ;;
  *) fail "unknown MPI '$built' (want \"Open MPI\" or MPICH)"; finish check_wrong_launcher; exit ;;
esac
expected=("built against $built but was started by" "rebuild it against $other")

# run <name> <command...>: status in $rc, stdout and stderr together in $out (60 s at most)
run() {
  local name="$1"; shift
  out="$(timeout 60 "$@" 2>&1)"; rc=$?
  [[ $rc -ne 124 ]] || fail "$name: still running after 60 s"
}
# refused <name> <status wanted, or "any" but 0> <times the line must appear>: that status
# and the line, that often
refused() {
  local name="$1" status="$2" times="$3" count
  if [[ "$status" == any ]]; then
    [[ $rc -ne 0 ]] || { fail "$name: status 0: $out"; return; }
  else
    [[ $rc -eq $status ]] || { fail "$name: status $rc, wanted $status: $out"; return; }
  fi
  count="$(grep -c "^treefold: this program was built against" <<<"$out")"
  [[ "$count" == "$times" ]] || { fail "$name: the line printed $count times, wanted $times: $out"; return; }
  local text
  for text in "${expected[@]}"; do
    [[ $times -eq 0 || "$out" == *"$text"* ]] || { fail "$name: the message lacks '$text': $out"; return; }
  done
  pass
}

run "by hand, rank 0" env "${fake[@]}" "$rank_var=0" "${program[@]}"
refused "the $other launcher's variables (rank 0)" "$want" 1
run "by hand, rank 1" env "${fake[@]}" "$rank_var=1" "${program[@]}"
refused "the $other launcher's variables (rank 1)" "$want" "$every_rank"
if [[ $every_rank -eq 1 ]]; then
  # One process from the other launcher is a job that runs as it should (p = 1 either way).
  run "one process" env "${fake[@]}" "$rank_var=0" "${fake[-1]%=*}=1" "${program[@]}"
  [[ $rc -eq 0 ]] && pass || fail "a one-process job of the $other launcher was refused: status $rc: $out"
fi
run "check off" env "${fake[@]}" "$rank_var=0" TREEFOLD_LAUNCHER_CHECK=0 "${program[@]}"
[[ $rc -eq 0 ]] && pass || fail "TREEFOLD_LAUNCHER_CHECK=0 did not let it run: status $rc: $out"

if [[ -n "$other_launcher" ]]; then
  # (Open MPI's launcher refuses root unless told; MPICH's ignores these.)
  run "$other_launcher" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_rmaps_base_oversubscribe=1 "$other_launcher" -n 2 "${program[@]}"
  # (the launchers report a failed process with a status of their own)
  refused "$other_launcher -n 2" any $((1 + every_rank))
else
  echo "NOTE: no launcher of $other installed: its real launcher is not tried"
fi

run "own launcher" "${mpirun[@]}" -n 2 "${program[@]}"
[[ $rc -eq 0 && "$out" != *"treefold: this program was built against"* ]] && pass ||
  fail "${mpirun[*]} -n 2: status $rc: $out"
finish check_wrong_launcher
