"""Installs the rfms package that CMake built into BUILD/python/rfms (BUILD: the environment's
RFMS_BUILD_DIR, else the checkout's build/), so that `import rfms` works outside the tree."""

import os
import pathlib
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent


def built_package() -> pathlib.Path:
    build = pathlib.Path(os.environ.get("RFMS_BUILD_DIR", HERE.parent / "build"))
    package = build / "python" / "rfms"
    if not list(package.glob("_rfms*.so")):
        raise SystemExit(f"rfms: no built module in {package}: run deploy/build first "
                         "(or set RFMS_BUILD_DIR to the build directory)")
    return package


class CopyBuiltPackage(build_py):
    """The package as CMake laid it out: the extension module, the Python files and the stubs."""

    def run(self):
        target = pathlib.Path(self.build_lib) / "rfms"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(built_package(), target, ignore=shutil.ignore_patterns("__pycache__"))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True  # the wheel holds a compiled module: tag it for this platform


setup(cmdclass={"build_py": CopyBuiltPackage}, distclass=BinaryDistribution, packages=["rfms"])
