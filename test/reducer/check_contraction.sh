#!/usr/bin/env bash
# Floating-point contraction is refused in the translation unit that plans a reducer with a
# multiply-add operator, or a dot_reducer (contraction.cpp): built with g++ and clang++ with treefold's
# pkg-config flags (this build's treefold-cxx.pc and treefold.pc, pointed at the build tree) followed by the flags
# under test, run on 2 ranks. Both ways of getting it wrong must make every rank throw the
# message naming -ffp-contract=off: an explicit -ffp-contract=fast after the flags, and the
# compiler's own default (g++ -std=gnu++20; clang++'s -ffp-contract=on) with the include
# path alone; the documented flags must plan.
# Usage: check_contraction.sh <source dir> <build dir> <mpiexec>
set -eu
src="$1"; build="$2"; mpiexec="$3"
read -ra mpirun <<<"${TREEFOLD_MPIRUN:-$mpiexec}" # the configuration's launcher and flags (ctest sets it)
grep -qw fma /proc/cpuinfo || { echo "this CPU has no FMA: nothing to contract"; exit 77; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
# The C++ line: treefold-cxx.pc's Cflags (-std=c++20, ...) and those of treefold.pc it requires.
cflags="$(sed -n 's/^Cflags: //p' "$build/treefold-cxx.pc" "$build/treefold.pc" | tr '\n' ' ' |
  sed "s|-I\${includedir}|-I$src/include -I$build/include|g")"
libs="$(sed -n 's/^Libs: //p' "$build/treefold.pc" | sed "s|-L\${libdir}|-L$build/src|; s| -ltreefold_[a-z]*||g")"
# Without -std and -ffp-contract: the include path alone.
bare="$(echo "$cflags" | sed 's/-std=c++20//; s/-ffp-contract=off//')"
fail=0
# expect: refused or planned
check() {
    local name="$1" expect="$2" cxx="$3"; shift 3
    command -v "$cxx" >/dev/null || { echo "SKIP $name: $cxx not found"; return; }
    # shellcheck disable=SC2068 # the flags are words
    "$cxx" "$src/test/reducer/contraction.cpp" $@ $libs -O2 -o "$work/prog"
    local out refused
    out="$("${mpirun[@]}" -n 2 "$work/prog" || true)"
    refused="$(grep -c 'refused: .*-ffp-contract=off' <<<"$out" || true)"
    # two reducers (reducer<mat, mat_mul>, dot_reducer) on two ranks: four lines
    if [[ "$expect" == refused && "$refused" == 4 ]] || [[ "$expect" == planned && "$(grep -c '^planned' <<<"$out")" == 4 ]]; then
        echo "ok   $name: $expect"
    else
        echo "FAIL $name: want $expect from both reducers on both ranks, got:"; echo "$out"; fail=1
    fi
}
for cxx in g++ clang++; do
    check "$cxx pkg-config flags -mfma -ffp-contract=fast" refused "$cxx" $cflags -mfma -ffp-contract=fast
    check "$cxx include path, -std=gnu++20 -mfma" refused "$cxx" $bare -std=gnu++20 -mfma
    check "$cxx pkg-config flags -mfma (control)" planned "$cxx" $cflags -mfma
done
exit $fail
