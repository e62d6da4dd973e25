#!/usr/bin/env bash
# README.md's "Install" block, run as written: its three commands in a copy of the sources (the
# files git tracks, or the tree without build folders), with HOME a scratch folder, then a
# look at what landed under $HOME/.local and a C program built from it with the README's
# pkg-config line, run at p = 2 (its sum is exact).
# Usage: install.sh <source dir> <scratch dir> <mpicc> <mpiexec>
set -euo pipefail
src="$1"; work="$2"; mpicc="$3"; mpiexec="$4"
read -ra mpirun <<<"${TREEFOLD_MPIRUN:-$mpiexec}" # the configuration's launcher and flags (ctest sets it)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work/home" "$work/src"
# The block: the lines between the first ```sh fence after "## Install" and its closing fence.
block="$(awk '/^## Install/ {in_section = 1; next} /^## / {in_section = 0}
              in_section && /^```sh$/ {in_block = 1; next} in_block && /^```$/ {exit} in_block {print}' "$src/README.md")"
[[ -n "$block" ]] || fail "README.md has no \`\`\`sh block under '## Install'"
echo "README.md's install block:"; echo "$block"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src")
else
  (cd "$src" && tar --exclude='./build*' --exclude='./.git' -cf - .) | tar -xf - -C "$work/src"
fi
[[ ! -e "$work/src/build" ]] || fail "the copied sources hold a build folder"
export HOME="$work/home"
(cd "$work/src" && bash -euo pipefail -c "$block") >"$work/install.log" 2>&1 ||
  { tail -n 30 "$work/install.log"; fail "the install block failed (log: $work/install.log)"; }
prefix="$HOME/.local"
grep -q "CMAKE_BUILD_TYPE:STRING=Release" "$work/src/build/CMakeCache.txt" || fail "the default build type is not Release"
grep -q "TREEFOLD_BUILD_TESTS:BOOL=OFF" "$work/src/build/CMakeCache.txt" || fail "a user's build builds the suites"
for f in lib/libtreefold.a include/treefold/treefold.hpp include/treefold/treefold.h bin/treefold \
         lib/pkgconfig/treefold.pc lib/cmake/treefold/treefoldConfig.cmake; do
  [[ -e "$prefix/$f" ]] || fail "no $f under \$HOME/.local"
done
cat >"$work/app.c" <<'C'
#include <treefold/treefold.h>
#include <stdio.h>
int main(int argc, char** argv)
{
    int rank = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double x[3] = {3.0 * rank + 1, 3.0 * rank + 2, 3.0 * rank + 3}, total = 0;
    const int rc = treefold_allreduce(x, &total, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("rc %d total %.1f\n", rc, total);
    MPI_Finalize();
    return rc;
}
C
# shellcheck disable=SC2046 # pkg-config's words
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" "$mpicc" -std=c99 "$work/app.c" -o "$work/app" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs treefold) || fail "the C program did not build"
out="$("${mpirun[@]}" -n 2 "$work/app")"
[[ "$out" == "rc 0 total 21.0" ]] || fail "the installed library summed 1..6 as '$out'"
echo "installed and used: $out"
rm -rf "$work"
