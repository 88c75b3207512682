"""The examples in examples/python, run as a user runs them, against a paced cluster."""

import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SOURCE

EXAMPLES = SOURCE / "examples" / "python"


def run(example: str, cluster, *args: str, timeout: float = 180.0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXAMPLES / example), "--bridge", cluster.bridge,
                           "--key", cluster.key(), *args],
                          capture_output=True, text=True, timeout=timeout, env=dict(os.environ))


def test_the_manuals_pumatask_in_python(cluster):
    r = run("pumatask.py", cluster, "--comply-s", "3")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("pumatask done: move ") and " completed, T6 at (" in r.stdout, r.stdout
    at = [float(x) for x in r.stdout.split("(")[1].split(")")[0].split(",")]
    assert at == pytest.approx([203.2, -126.23, 203.2], abs=0.5)  # home, as the manual's task ends


def test_following_a_frame_at_200_hz(cluster):
    r = run("follow_frame.py", cluster, "--seconds", "3")
    assert r.returncode == 0, r.stderr
    words = r.stdout.split()
    rate = float(words[words.index("Hz,") - 1])
    trail_mm = float(words[words.index("mm") - 1])
    assert rate > 100.0  # the script paces itself at 200 Hz; a loaded machine may slow it
    assert trail_mm < 5.0  # the controller carries the object on between updates


def test_watching_servo_errors_saves_a_figure(cluster, tmp_path):
    out = tmp_path / "errors.png"
    r = run("servo_errors.py", cluster, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 10_000
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert ", 0 dropped;" in r.stdout, r.stdout


def test_an_example_without_a_cluster_fails_with_one_clear_line(tmp_path):
    r = subprocess.run([sys.executable, str(EXAMPLES / "pumatask.py"), "--bridge", "127.0.0.1:9",
                        "--key", str(tmp_path / "missing.key")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert r.stderr.startswith("pumatask: ") and len(r.stderr.strip().splitlines()) == 1, r.stderr
