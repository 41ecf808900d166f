"""Builds the `damka` Python module with CMake for `pip install .` (see pyproject.toml).

The module is the CMake target damka_python, configured for the Python that
runs pip (sys.executable) as a portable Release build without tests or
benchmarks, in setuptools' temporary folder.  DAMKA_CMAKE_BUILD_DIR names an
already configured build folder to build the target in instead (the module
must then be built for this Python's version: its file suffix is checked).
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent
# setuptools' own files (egg-info, build/lib..., bdist...) go here, out of the CMake build folder (build/).
BUILD_BASE = SOURCE / "build-python"
BUILD_BASE.mkdir(exist_ok=True)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("DAMKA_CMAKE_BUILD_DIR")
        if build:
            build = Path(build).resolve()
        else:
            build = Path(self.build_temp).resolve() / "cmake"
            subprocess.run(["cmake", "-S", str(SOURCE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                            "-DDAMKA_NATIVE=OFF", "-DDAMKA_TESTS=OFF", "-DDAMKA_BENCH=OFF", "-DDAMKA_MPI=OFF",
                            "-DDAMKA_PYTHON=ON", "-DPython_EXECUTABLE=" + sys.executable], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "damka_python",
                        "-j", str(os.cpu_count() or 1)], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build / "python" / ("damka" + suffix)
        if not built.exists():
            found = sorted(p.name for p in (build / "python").glob("damka*.so"))
            sys.exit("damka: %s holds no module for this Python (%s; found: %s)"
                     % (build / "python", "damka" + suffix, ", ".join(found) or "none"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(ext_modules=[Extension("damka", sources=[])],
      cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": str(BUILD_BASE)}, "egg_info": {"egg_base": str(BUILD_BASE)}})
