"""pip's build of the Python module treefold: CMake configures the project (Release, no
tests, CLI, benchmarks, components or Fortran) and builds the target treefold_python (the core
library with its C API, and the module), whose library
setuptools then installs as the extension module `treefold`. TREEFOLD_CMAKE_BUILD_DIR names
an already configured build folder to build in instead (the ctest that checks `pip install`
uses its own). TREEFOLD_CMAKE_ARGS adds configure arguments (split on spaces);
CMAKE_BUILD_PARALLEL_LEVEL sets the build's job count (default: every CPU)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path


def missing_modules():
    """The modules the build needs that this interpreter cannot import (numpy and mpi4py at
    run time; pybind11 and wheel to build)."""
    missing = []
    for name in ("numpy", "mpi4py", "pybind11", "wheel"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    return missing


def refuse_interpreter(missing):
    """Stops with what to do when this interpreter lacks what the module needs: a pyenv or
    conda python3 usually has no mpi4py built for the system's MPI, and without wheel pip's
    error is "invalid command 'bdist_wheel'"."""
    sys.exit(
        f"treefold: {sys.executable} cannot build the module: no {', '.join(missing)} for it.\n"
        "  Debian's interpreter has them (scripts/setup installs python3-numpy, python3-mpi4py,\n"
        "  python3-pybind11, python3-wheel); make the environment from it:\n"
        "    /usr/bin/python3 -m venv --system-site-packages venv\n"
        "    venv/bin/pip install --no-build-isolation --no-index .\n"
        "  Or install them for this interpreter (mpi4py built against the MPI treefold uses).")


# Before setuptools is imported or runs any command: pip's first (dist_info, for the
# metadata) already needs wheel and fails without it as "invalid command 'bdist_wheel'", which
# names no cause; and an interpreter without numpy, mpi4py or pybind11 would only fail after
# the C++ build.
if any(not arg.startswith("-") for arg in sys.argv[1:]) and missing_modules():
    refuse_interpreter(missing_modules())

from setuptools import Extension, setup  # noqa: E402 (after the interpreter check)
from setuptools.command.build_ext import build_ext  # noqa: E402

SOURCE = Path(__file__).resolve().parent


class CMakeModule(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        missing = missing_modules()
        if missing:
            refuse_interpreter(missing)
        build = os.environ.get("TREEFOLD_CMAKE_BUILD_DIR")
        if not build:
            build = str(Path(self.build_temp).resolve() / "cmake")
            configure = ["cmake", "-S", str(SOURCE), "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                         "-DTREEFOLD_PYTHON=ON", "-DTREEFOLD_FORTRAN=OFF", "-DTREEFOLD_BUILD_TESTS=OFF",
                         "-DTREEFOLD_BUILD_CLI=OFF", "-DTREEFOLD_BUILD_PERF=OFF", "-DTREEFOLD_COMPONENTS=",
                         f"-DPython3_EXECUTABLE={sys.executable}"]
            configure += os.environ.get("TREEFOLD_CMAKE_ARGS", "").split()
            subprocess.run(configure, check=True)
        # CMAKE_BUILD_PARALLEL_LEVEL, where set, is cmake's own job count; else every CPU.
        jobs = [] if os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") else ["-j", str(os.cpu_count() or 1)]
        print("treefold: building the core library (libtreefold.a with the C API) and the module, "
              f"nothing else, in {build}", flush=True)
        subprocess.run(["cmake", "--build", build, "--target", "treefold_python", *jobs], check=True)
        built = sorted((Path(build) / "python").glob("treefold*.so"))
        if not built:
            raise RuntimeError(f"treefold: no treefold*.so in {build}/python after the build")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


setup(ext_modules=[CMakeModule("treefold")], cmdclass={"build_ext": CMakeBuild})
