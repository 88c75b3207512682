"""The view's process tests share the Python tests' cluster helper (tests/support/cluster.py)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
