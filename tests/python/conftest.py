"""What the Python package's tests share: where the tree and its programs are, and a paced
cluster with its bridge, started by deploy/rfms in a temp dir and stopped whatever the test does."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from cluster import BIN, ROBOT, SOURCE, Cluster, free_udp_port, paced_cluster  # noqa: E402,F401


@pytest.fixture(scope="module")
def cluster():
    """A paced cluster (the default PUMA 260 and scene) with its bridge and the run's keys."""
    with paced_cluster("rfms-python-", ["--no-view"]) as c:
        yield c
