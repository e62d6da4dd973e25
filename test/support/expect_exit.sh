#!/usr/bin/env bash
# expect_exit.sh <status> <text> <command...>: runs the command (60 s at most) and passes only
# when it exits with <status> and its output contains <text>; a crash, a hang or another
# status fails (unlike ctest's WILL_FAIL, which passes any failure).
set -u
want="$1"; text="$2"; shift 2
out="$(timeout 60 "$@" 2>&1)"; rc=$?
echo "$out"
if [[ $rc -ne $want ]]; then echo "expect_exit: status $rc, wanted $want: $*"; exit 1; fi
if [[ "$out" != *"$text"* ]]; then echo "expect_exit: output lacks '$text': $*"; exit 1; fi
