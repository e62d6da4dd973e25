#!/usr/bin/env bash
# `pip install .` the Python way: a fresh virtual environment made with
# --system-site-packages (Debian's numpy, mpi4py, setuptools and wheel), pip offline without
# build isolation, then `import treefold` from the environment and examples/allreduce.py at
# p = 2 (the bits of p = 1). pip builds the packaging files (pyproject.toml, setup.py) copied
# to a scratch folder, in this build's own CMake folder (TREEFOLD_CMAKE_BUILD_DIR), so the
# library is not compiled twice. Exit 77 (skipped) where venv, pip or setuptools is missing.
# Before that, an interpreter without numpy, mpi4py, pybind11 and wheel (a bare virtual
# environment stands in for a pyenv python3) is stopped by setup.py with the recipe that works,
# not pip's "invalid command 'bdist_wheel'".
# Usage: pip_install.sh <source dir> <build dir> <python3> <mpiexec>
set -eu
source="$1"; build="$2"; python="$3"; mpiexec="$4"
read -ra mpirun <<<"${TREEFOLD_MPIRUN:-$mpiexec}" # the configuration's launcher and flags (ctest sets it)
skip() { echo "SKIPPED: $1 (scripts/setup installs python3-venv, python3-pip, python3-setuptools, python3-wheel)"; exit 77; }
"$python" -c "import venv" 2>/dev/null || skip "no venv for $python"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
"$python" -m venv --without-pip "$work/bare" >/dev/null 2>&1 || skip "$python -m venv failed"
if refusal="$(cd "$source" && "$work/bare/bin/python" setup.py dist_info --output-dir "$work" 2>&1)"; then
  echo "FAIL: setup.py ran under an interpreter without numpy, mpi4py, pybind11 and wheel"; exit 1
fi
[[ "$refusal" == *"cannot build the module: no numpy, mpi4py, pybind11, wheel"* &&
   "$refusal" == *"/usr/bin/python3 -m venv --system-site-packages venv"* ]] ||
  { echo "FAIL: setup.py's message under a bare interpreter was: $refusal"; exit 1; }
echo "a bare interpreter is refused with the recipe"
rm -rf "$work/bare"
# --without-pip: the environment runs the system's pip (a system site package), which installs
# into the environment (making it: 0.06 s instead of 2.9 s with ensurepip's copy, Debian's python3,
# two runs each of `python3 -m venv --system-site-packages [--without-pip]`).
"$python" -m venv --system-site-packages --without-pip "$work/venv" >/dev/null 2>&1 || skip "$python -m venv failed"
venv_python="$work/venv/bin/python"
"$venv_python" -m pip --version >/dev/null 2>&1 || skip "no pip for the virtual environment"
"$venv_python" -c "import setuptools, wheel" 2>/dev/null || skip "no setuptools or wheel"
mkdir "$work/src"
cp "$source/pyproject.toml" "$source/setup.py" "$source/README.md" "$work/src/"
TREEFOLD_CMAKE_BUILD_DIR="$build" "$venv_python" -m pip install --no-build-isolation --no-index -q "$work/src"
cd "$work"
where="$("$venv_python" -c "import sys, treefold; print(treefold.__file__.startswith(sys.prefix), treefold.__file__)")"
echo "import treefold: $where"
[[ "$where" == True* ]] || { echo "FAIL: treefold was not imported from the virtual environment"; exit 1; }
"$venv_python" -c "import numpy as np, sys; v = 1.0 / np.arange(1, 1001); open(sys.argv[1], 'wb').write(np.uint64(1000).tobytes() + v.tobytes())" values.binpsllh
one="$("${mpirun[@]}" -n 1 "$venv_python" "$source/examples/allreduce.py" values.binpsllh)"
two="$("${mpirun[@]}" -n 2 "$venv_python" "$source/examples/allreduce.py" values.binpsllh)"
echo "$two"
[[ "$two" == *"tree sum bits"* && "$two" == "$one" ]] || { echo "FAIL: p = 2 printed other bits than p = 1:"; echo "$one"; exit 1; }
