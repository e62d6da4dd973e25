#!/usr/bin/env bash
# What a user's translation unit sees of the headers (issue 14):
#  1. -ffast-math is refused with a message naming the reason, by every public C++ header
#     (each includes treefold/config.hpp, where the check lives), unless the TU defines
#     TREEFOLD_ALLOW_FAST_MATH;
#  2. the narrow front door treefold/reducer.hpp pulls in none of DSOP, RMA, the models (nor
#     the model-planned schedule generators), the one-sided exchange, nor file reading (the
#     recursive-doubling schedule exchange is one of automatic's candidates, so it is in);
#  3. TREEFOLD_VERSION_STRING matches the project's version.
# Usage: check_user_view.sh <include dirs, ':'-separated: the core's, then the components'>
#        <c++ compiler> <version> <compiler flags...>
set -u
IFS=: read -r -a includes <<<"$1"; cxx="$2"; version="$3"; shift 3
flags=(-std=c++20 "$@")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for include in "${includes[@]}"; do
  while IFS= read -r header; do
    rel="${header#"$include"/}"
    [[ "$rel" == treefold/config.hpp ]] && continue
    grep -q '^#include "treefold/config.hpp"' "$header" || fail "$rel does not include treefold/config.hpp"
  done < <(find "$include/treefold" -name '*.hpp' | sort)
done

src="$(mktemp --suffix=.cpp)"; trap 'rm -f "$src"' EXIT
printf '#include "treefold/treefold.hpp"\nint main() {}\n' > "$src"
out="$("$cxx" "${flags[@]}" -E -ffast-math "$src" 2>&1 >/dev/null)"
# g++ prints 'error: #error "treefold: ...', clang++ 'error: "treefold: ...'.
[[ $? -ne 0 && "$out" =~ error:\ (#error\ )?\"treefold:\ this\ translation\ unit\ is\ compiled\ with\ -ffast-math ]] \
  || fail "-ffast-math was not refused as intended: ${out:0:2000}"
"$cxx" "${flags[@]}" -E -ffast-math -DTREEFOLD_ALLOW_FAST_MATH "$src" >/dev/null || fail "TREEFOLD_ALLOW_FAST_MATH does not allow it"
"$cxx" "${flags[@]}" -E "$src" >/dev/null || fail "the umbrella header does not preprocess without -ffast-math"

printf '#include "treefold/reducer.hpp"\n' > "$src"
deps="$("$cxx" "${flags[@]}" -M "$src")" || fail "reducer.hpp: -M failed"
for unwanted in treefold/dsop/ treefold/rma/ treefold/model/ treefold/io/ treefold/rma/one_sided.hpp \
                treefold/model/schedules.hpp; do
  [[ "$deps" != *"$unwanted"* ]] || fail "treefold/reducer.hpp includes $unwanted"
done
[[ "$deps" == *treefold/exchange/executor.hpp* ]] || fail "the include list of reducer.hpp looks wrong: $deps"

printf '#include "treefold/version.hpp"\nTREEFOLD_VERSION_STRING TREEFOLD_VERSION\n' > "$src"
got="$("$cxx" "${flags[@]}" -E -P "$src" | tr -d '\n ')"
IFS=. read -r major minor patch <<<"$version"
[[ "$got" == "\"$version\"(${major}*10000+${minor}*100+${patch})" ]] \
  || fail "TREEFOLD_VERSION_STRING TREEFOLD_VERSION gives $got for version $version"

[[ $failures -eq 0 ]] && echo "user view of the headers: all checks passed"
exit $((failures > 0))
