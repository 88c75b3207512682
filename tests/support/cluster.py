"""A paced cluster for the Python-driven process tests (tests/python, tests/view): started by
deploy/rfms in a temp dir and stopped whatever the test does, and where the tree's programs are."""

import contextlib
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
from typing import Iterator, Sequence

SOURCE = pathlib.Path(os.environ.get("RFMS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BIN = pathlib.Path(os.environ.get("RFMS_BIN_DIR", SOURCE / "build" / "bin"))
ROBOT = SOURCE / "deploy" / "robots" / "puma260.textproto"


def free_udp_port() -> int:
    """A UDP port the kernel has free now (the bridge binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, run: pathlib.Path, port: int) -> None:
        self.run, self.port = run, port

    @property
    def bridge(self) -> str:
        return f"127.0.0.1:{self.port}"

    def key(self, who: str = "operator") -> str:
        return str(self.run / "keys" / f"{who}.key")

    def down(self) -> None:
        subprocess.run([str(SOURCE / "deploy" / "rfms"), "down", str(self.run)], capture_output=True, timeout=60)


@contextlib.contextmanager
def paced_cluster(prefix: str, options: Sequence[str] = ()) -> Iterator[Cluster]:
    """A paced cluster (the default PUMA 260 and scene) with its bridge and the run's keys;
    `options` go to deploy/rfms up."""
    run = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    c = Cluster(run, free_udp_port())
    up = subprocess.run([str(SOURCE / "deploy" / "rfms"), "up", "--clock", "paced", "--run-dir", str(run),
                         "--bridge-port", str(c.port), *options], capture_output=True, text=True, timeout=120)
    try:
        assert up.returncode == 0, up.stderr
        yield c
    finally:
        c.down()
        shutil.rmtree(run, ignore_errors=True)
