#!/usr/bin/env bash
# Tests check_layering.sh itself on two tiny trees made here: a clean one (must pass) and
# one breaking every rule once, beside includes that are allowed (must fail and report
# exactly the expected file:line entries, no more, no fewer).
set -uo pipefail
CHECKER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check_layering.sh"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
status=0

put() { # put <tree> <file> <lines...>
  local tree="$1" file="$2"
  shift 2
  mkdir -p "$WORK/$tree/$(dirname "$file")"
  printf '%s\n' "$@" >"$WORK/$tree/$file"
}

# Allowed everywhere: both trees hold these.
for tree in clean violating; do
  put $tree include/treefold/index_tree/node.hpp '#pragma once' '#include <cstdint>'
  put $tree include/treefold/layout/block_layout.hpp '#pragma once' \
    '#include "treefold/index_tree/node.hpp"' '#include <vector>' '// #include <mpi.h>' '/* mpi.h lives elsewhere */'
  put $tree include/treefold/topology/tree_shape.hpp '#pragma once' '#include "../tree/node.hpp"'
  put $tree include/treefold/kernel/scalar.hpp '#pragma once' '#include <xsimd/xsimd.hpp>'
  put $tree include/treefold/net/p2p.hpp '#pragma once' '#include <boost/mpi/communicator.hpp>' '#include <mpi.h>'
  put $tree include/treefold/exchange/tree.hpp '#pragma once' '#include "treefold/topology/tree_shape.hpp"' \
    '#include "treefold/net/p2p.hpp"' '#include <boost/mpi/communicator.hpp>'
  put $tree components/collective/include/treefold/collective/tree_reduce.hpp '#pragma once' '#include "treefold/net/p2p.hpp"' \
    '#include "../topology/tree_shape.hpp"'
  put $tree include/treefold/reducer.hpp '#pragma once' '#include "treefold/exchange/tree.hpp"' \
    '#include "treefold/net/wire.hpp"'
  put $tree include/treefold/net/wire.hpp '#pragma once' '#include <mpi.h>'
  put $tree include/treefold/all_exchanges.hpp '#pragma once' '#include "treefold/rma/one_sided.hpp"'
  put $tree src/cli/sum.cpp '#include "treefold/model/pipelining.hpp"'
  put $tree src/layout/block_layout.cpp '#include "treefold/layout/block_layout.hpp"' '#include <stdexcept>'
  put $tree components/collective/src/reduce.cpp '#include "treefold/collective/tree_reduce.hpp"' '#include <mpi.h>'
done

# One violation of each rule (line numbers are part of the expectation below).
put violating include/treefold/layout/owner.hpp '#pragma once' '#include <mpi.h>'
put violating include/treefold/kernel/simd.hpp '#pragma once' '#include <vector>' '  #  include <boost/mpi/communicator.hpp>'
put violating include/treefold/index_tree/all.hpp '#include <boost/mpi.hpp>'
put violating components/model/include/treefold/model/simulator.hpp '#pragma once' '#include "treefold/collective/tree_reduce.hpp"'
put violating include/treefold/topology/schedule.hpp '#pragma once' '#include "treefold/reducer.hpp"' \
  '#include "treefold/index_tree/node.hpp"' '#include "../net/p2p.hpp"'
put violating components/io/include/treefold/io/values_file.hpp '#include "treefold/rma/queue.hpp"' '#include "treefold/dsop/dsop.hpp"' \
  '#include "treefold/row_reducer.hpp"'
put violating src/layout/plan_messages.cpp '#include "treefold/layout/block_layout.hpp"' '#include "treefold/exchange/routes.hpp"'
put violating src/kernel/dispatch.cpp '#include "treefold/kernel/dispatch.hpp"' '#include "../collective/helper.hpp"'
put violating components/collective/include/treefold/collective/allreduce.hpp '#pragma once' '#include "treefold/exchange/wire.hpp"'
put violating include/treefold/exchange/schedule.hpp '#include "treefold/net/p2p.hpp"' '#include "../collective/schedule_run.hpp"'
put violating components/collective/src/schedule.cpp '#include "treefold/exchange/wire.hpp"'
put violating src/exchange/direct.cpp '#include "treefold/collective/tree_reduce.hpp"'
put violating include/treefold/all_reduce.hpp '#pragma once' '#include "treefold/model/pipelining.hpp"'
put violating include/treefold/kernel/detail/lanes.hpp '#pragma once' '#include <boost/mpi.hpp>'
put violating include/treefold/detail/helper.hpp '#pragma once'
put violating include/treefold/rma/queue.hpp '#pragma once'
put violating src/net/comm.cpp '#include "treefold/net/wire.hpp"' '#include "treefold/rma/queue.hpp"'

expected="$(LC_ALL=C sort <<'LIST'
include/treefold/all_reduce.hpp:2
include/treefold/kernel/detail/lanes.hpp:2
include/treefold/detail/helper.hpp:0
include/treefold/rma/queue.hpp:0
src/net/comm.cpp:2
components/collective/include/treefold/collective/allreduce.hpp:2
include/treefold/exchange/schedule.hpp:2
components/io/include/treefold/io/values_file.hpp:1
components/io/include/treefold/io/values_file.hpp:2
components/io/include/treefold/io/values_file.hpp:3
include/treefold/kernel/simd.hpp:3
include/treefold/layout/owner.hpp:2
components/model/include/treefold/model/simulator.hpp:2
include/treefold/topology/schedule.hpp:2
include/treefold/topology/schedule.hpp:4
include/treefold/index_tree/all.hpp:1
components/collective/src/schedule.cpp:1
src/exchange/direct.cpp:1
src/kernel/dispatch.cpp:2
src/layout/plan_messages.cpp:2
LIST
)"

# run_checker <tree> <expected exit status>: runs the checker, shows its output, sets OUT.
run_checker() {
  local tree="$1" want="$2" rc
  OUT="$("$CHECKER" "$WORK/$tree" 2>&1)"
  rc=$?
  echo "--- $tree (exit $rc):"
  echo "$OUT"
  if [[ $rc -ne $want ]]; then
    echo "FAIL: the checker should exit with $want on '$tree', not $rc"
    status=1
  fi
}

run_checker clean 0
run_checker violating 1
got="$(grep -oE '^[^ ]+:[0-9]+' <<<"$OUT" | LC_ALL=C sort)"
if [[ "$got" != "$expected" ]]; then
  echo "FAIL: reported locations differ from the expected ones (< expected, > reported):"
  diff <(echo "$expected") <(echo "$got")
  status=1
fi
run_checker does-not-exist 2

[[ $status -eq 0 ]] && echo "check_layering.sh: clean tree passes, every violation reported"
exit $status
