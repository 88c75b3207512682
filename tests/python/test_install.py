"""pip installs the package CMake built, with no network, into a virtual environment that sees
Debian's numpy; `import rfms` then works from anywhere, with its stubs and docstrings."""

import os
import pathlib
import shutil
import subprocess
import sys

from conftest import BIN, SOURCE


def test_pip_installs_the_built_package_outside_the_tree(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    # From a copy of python/, so that pip's in-place build leaves the checkout as it was.
    source = tmp_path / "python"
    shutil.copytree(SOURCE / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    env = dict(os.environ, RFMS_BUILD_DIR=str(BIN.parent), PIP_NO_INDEX="1")
    env.pop("PYTHONPATH", None)
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", str(source)],
                       capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    probe = ("import rfms, pathlib, pydoc; "
             "r = rfms.Robot.load(%r); "
             "print(pathlib.Path(rfms.__file__).parent); "
             "print(r.fk([0, 0, 0, 0, 0, 0])[0, 3]); "
             "print('connect' in pydoc.render_doc(rfms.connect))") % str(SOURCE / "deploy/robots/puma260.textproto")
    r = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, timeout=60,
                       env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    where, x, documented = r.stdout.split()
    assert pathlib.Path(where).is_relative_to(venv)
    assert float(x) == 0.2032 and documented == "True"
    installed = pathlib.Path(where)
    assert (installed / "_rfms.pyi").is_file() and (installed / "py.typed").is_file()


def test_without_a_built_module_pip_says_what_to_do(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    source = tmp_path / "python"
    shutil.copytree(SOURCE / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    env = dict(os.environ, RFMS_BUILD_DIR=str(tmp_path / "no-build"))
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", str(source)],
                       capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert r.returncode != 0
    assert "run deploy/build first" in r.stdout + r.stderr
