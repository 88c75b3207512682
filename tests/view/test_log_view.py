"""rfms-replay view: a run log played through the view's server, read by Foxglove's own client.
rfms-sim writes a log of examples/line.task (calibration and two moves); the replay plays it at
40 times its pace once the probe has subscribed, and stops at its end. What the probe received is
the log: every S_MAIL of it, once and in order, the arm's frames of their periods, and the moves
and states as log lines."""

import json
import pathlib
import subprocess

import numpy as np
import pytest

import rfms
from cluster import BIN, ROBOT, SOURCE
from view_checks import LOGGED, check_frames, check_smails, check_world

PROBE = pathlib.Path(__file__).resolve().parent / "foxglove_probe.cjs"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    work = tmp_path_factory.mktemp("log-view")
    log_path, port_file, out = work / "line.mcap", work / "port", work / "probe.jsonl"
    sim = subprocess.run([str(BIN / "rfms-sim"), "--task", str(SOURCE / "examples" / "line.task"), "--log",
                          str(log_path)], capture_output=True, text=True, timeout=120)
    assert sim.returncode == 0, sim.stderr
    replay = subprocess.Popen([str(BIN / "rfms-replay"), "view", str(log_path), "--view", "127.0.0.1:0", "--port-file",
                               str(port_file), "--speed", "40", "--exit-at-end"], stderr=subprocess.PIPE, text=True)
    try:
        line = replay.stderr.readline()
        assert "ready:" in line, line + replay.stderr.read()
        probe = subprocess.run(["node", str(PROBE), f"ws://127.0.0.1:{port_file.read_text().strip()}", "60", str(out),
                                "/frames", "/rfms/smail", "/log"], capture_output=True, text=True, timeout=120)
        # The replay stops at the log's end; the probe, at its own time or when the server goes.
        assert replay.wait(timeout=60) == 0, replay.stderr.read()
    finally:
        replay.kill()
    assert out.exists() and out.stat().st_size > 0, probe.stderr
    log = rfms.open_log(str(log_path))
    messages = [json.loads(line) for line in out.read_text().splitlines()]
    yield messages, log.signals(LOGGED), log.dt_ms * 1e-3, log.periods


def test_every_s_mail_of_the_log_is_played_once_in_order(played):
    messages, columns, dt, periods = played
    k = check_smails(messages, columns, dt)
    assert k == list(range(periods)), f"{len(k)} S_MAILs of {periods}"


def test_the_frames_are_the_logged_arm(played):
    messages, columns, dt, periods = played
    assert sum(m["topic"] == "/frames" for m in messages) >= 10
    assert check_frames(messages, columns, dt, rfms.Robot.load(str(ROBOT))) > 0


def test_the_moves_and_states_are_log_lines(played):
    messages, columns, dt, periods = played
    lines = [m["message"]["message"].split(": ", 1)[-1] for m in messages if m["topic"] == "/log"]
    for said in ("state CALIB", "move #1 started", "move #1 completed", "move #2 completed"):
        assert said in lines, lines


def test_the_frames_show_the_logged_world_and_each_moves_target(played):
    """From the requests and events the log holds: line.task's two positions, and each move's target
    while it ran."""
    messages = played[0]
    top = rfms.trans(0.220, -0.12624, 0.280) @ rfms.rpy(0, np.pi / 2, 0)
    low = rfms.trans(0.220, -0.12624, -0.020) @ rfms.rpy(0, np.pi / 2, 0)
    targets = check_world(messages, {"position/above": top, "transform/top": top, "position/below": low,
                                     "transform/low": low})
    assert any(np.allclose(t, top, atol=1e-9) for t in targets) and any(np.allclose(t, low, atol=1e-9) for t in targets)
