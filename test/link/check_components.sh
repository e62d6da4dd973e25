#!/usr/bin/env bash
# TREEFOLD_COMPONENTS selects what is built: configure (only) with a subset and read the
# targets the build system offers; an unknown component and a missing dependency are refused
# at configure time with a message naming them.
# Usage: check_components.sh <source dir> <scratch dir>
set -u
src="$1"; work="$2"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
rm -rf "$work"; mkdir -p "$work"

configure() { # configure <dir> <components> [cmake args...]
  local dir="$1" components="$2"
  shift 2
  cmake -S "$src" -B "$work/$dir" -DTREEFOLD_COMPONENTS="$components" -DTREEFOLD_FORTRAN=OFF -DTREEFOLD_PYTHON=OFF "$@" \
    >"$work/$dir.log" 2>&1
}

# The tool comes with io and collective (its `sum`); the model's subcommands stay out.
if configure subset "io;collective;rma" -DTREEFOLD_BUILD_TESTS=ON; then
  targets="$(cmake --build "$work/subset" --target help 2>/dev/null)"
  for want in treefold treefold_io treefold_collective treefold_rma treefold-cli; do
    grep -qE "^\.\.\. $want( |$)" <<<"$targets" || fail "subset io;collective;rma: no target $want"
  done
  for unwanted in treefold_model treefold_dsop; do
    grep -qE "^\.\.\. $unwanted( |$)" <<<"$targets" && fail "subset io;collective;rma: target $unwanted is built"
  done
  grep -q "TREEFOLD_BUILD_TESTS needs every component" "$work/subset.log" || fail "subset: no note that the tests are off"
  grep -q "TREEFOLD_BUILD_CLI" "$work/subset.log" && fail "subset io;collective;rma: the tool was turned off"
  # The build files (build.ninja, or the Makefiles' build.make) name each source compiled.
  build_files=("$work/subset/build.ninja" "$work/subset/src/cli")
  grep -rqsE "cli/sum\.cpp" "${build_files[@]}" || fail "subset io;collective;rma: sum.cpp is not compiled"
  grep -rqsE "cli/(plan|schedule|simulate)\.cpp" "${build_files[@]}" \
    && fail "subset io;collective;rma: the model's subcommands are compiled"
else
  fail "configuring with TREEFOLD_COMPONENTS=io;collective;rma failed: $(tail -5 "$work/subset.log")"
fi

# Without collective (the tool's `sum` deals values out with it) the tool is turned off with a
# note, not left to fail at build time.
if configure nocli "io;rma"; then
  targets="$(cmake --build "$work/nocli" --target help 2>/dev/null)"
  grep -qE "^\.\.\. treefold_rma( |$)" <<<"$targets" || fail "subset io;rma: no target treefold_rma"
  grep -qE "^\.\.\. treefold-cli( |$)" <<<"$targets" && fail "subset io;rma: the tool is built"
  grep -q "TREEFOLD_BUILD_CLI needs the io and collective components" "$work/nocli.log" \
    || fail "subset io;rma: no note that the tool is off"
else
  fail "configuring with TREEFOLD_COMPONENTS=io;rma failed: $(tail -5 "$work/nocli.log")"
fi

# TREEFOLD_C_API=OFF: the core without the C API's units, the suites that do not need it.
if configure nocapi "io;collective;model;dsop;rma" -DTREEFOLD_C_API=OFF -DTREEFOLD_BUILD_TESTS=ON -DTREEFOLD_BUILD_PERF=ON; then
  targets="$(cmake --build "$work/nocapi" --target help 2>/dev/null)"
  for want in treefold test_audit test_fuzz treefold-cli; do
    grep -qE "^\.\.\. $want( |$)" <<<"$targets" || fail "no C API: no target $want"
  done
  for unwanted in test_capi test_c99 reduction_bench link_core_only; do
    grep -qE "^\.\.\. $unwanted( |$)" <<<"$targets" && fail "no C API: target $unwanted is built"
  done
  ls "$work/nocapi/src/capi/"typed_*.cpp >/dev/null 2>&1 && fail "no C API: the C API's typed units were generated"
  grep -q "TREEFOLD_BUILD_PERF needs the C API" "$work/nocapi.log" || fail "no C API: no note that the benchmarks are off"
else
  fail "configuring with TREEFOLD_C_API=OFF failed: $(tail -5 "$work/nocapi.log")"
fi

if configure unknown "io;fft"; then
  fail "TREEFOLD_COMPONENTS=io;fft was accepted"
else
  grep -q "unknown component 'fft'" "$work/unknown.log" || fail "unknown component: message $(grep -m1 Error -A3 "$work/unknown.log")"
fi

if configure missing "dsop"; then
  fail "TREEFOLD_COMPONENTS=dsop (without collective) was accepted"
else
  grep -q "component dsop needs component collective" "$work/missing.log" || fail "missing dependency: message $(grep -m1 Error -A3 "$work/missing.log")"
fi

rm -rf "$work"
[[ $failures -eq 0 ]] && echo "components: subsets with and without the tool, no C API, unknown name and missing dependency checked"
exit $((failures > 0))
