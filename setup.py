"""pip's build of the Python module treefold: CMake configures the project (Release, no
tests, CLI, benchmarks or Fortran) and builds the target treefold_python, whose library
setuptools then installs as the extension module `treefold`. TREEFOLD_CMAKE_BUILD_DIR names
an already configured build folder to build in instead (the ctest that checks `pip install`
uses its own). TREEFOLD_CMAKE_ARGS adds configure arguments (split on spaces);
CMAKE_BUILD_PARALLEL_LEVEL sets the build's job count (default: every CPU)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent


class CMakeModule(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("TREEFOLD_CMAKE_BUILD_DIR")
        if not build:
            build = str(Path(self.build_temp).resolve() / "cmake")
            configure = ["cmake", "-S", str(SOURCE), "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                         "-DTREEFOLD_PYTHON=ON", "-DTREEFOLD_FORTRAN=OFF", "-DTREEFOLD_BUILD_TESTS=OFF",
                         "-DTREEFOLD_BUILD_CLI=OFF", "-DTREEFOLD_BUILD_PERF=OFF",
                         f"-DPython3_EXECUTABLE={sys.executable}"]
            configure += os.environ.get("TREEFOLD_CMAKE_ARGS", "").split()
            subprocess.run(configure, check=True)
        # CMAKE_BUILD_PARALLEL_LEVEL, where set, is cmake's own job count; else every CPU.
        jobs = [] if os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") else ["-j", str(os.cpu_count() or 1)]
        subprocess.run(["cmake", "--build", build, "--target", "treefold_python", *jobs], check=True)
        built = sorted((Path(build) / "python").glob("treefold*.so"))
        if not built:
            raise RuntimeError(f"treefold: no treefold*.so in {build}/python after the build")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


setup(ext_modules=[CMakeModule("treefold")], cmdclass={"build_ext": CMakeBuild})
