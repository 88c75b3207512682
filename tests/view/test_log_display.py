"""A run log shows the arm in 3D: the demo's task (the RFMS manual's example) run by rfms-sim writes
run.mcap, which tools/mcap-check/messages.mjs reads as Foxglove opens it (the official @mcap/core,
through the file's indexes, every CRC checked) and decodes with the schemas the file carries.
Every picture's T6 is the forward kinematics of the joints' logged angles of its period, its
setpoint the logged S_MAIL's; the pictures come at most 60 a second; and rfms-replay reads the log
as before: verify passes and nothing on the display channels counts as undecodable."""

import json
import subprocess

import numpy as np
import pytest

import rfms
from cluster import BIN, ROBOT
from view_checks import LOGGED, check_frames, check_world, read_display

@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo's task on rfms-sim with its log, and that log as @mcap/core reads it."""
    tmp = tmp_path_factory.mktemp("demo")
    log = tmp / "run.mcap"
    run = subprocess.run([str(BIN / "rfms-sim"), "--log", str(log), "--json"], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    figures = read_display(log, tmp / "display.jsonl")
    messages = [json.loads(line) for line in (tmp / "display.jsonl").read_text().splitlines()]
    yield log, figures, messages


def test_the_display_channels_carry_foxgloves_schemas(demo):
    _, figures, _ = demo
    assert figures["channels"]["/frames"] == "foxglove.FrameTransforms"
    assert figures["channels"]["/scene"] == "foxglove.SceneUpdate"
    assert figures["channels"]["/rfms/period"] == "rfms.proto.PeriodRecord"  # the mail is still there
    assert figures["messages"]["/frames"] == figures["messages"]["/scene"]


def test_each_picture_is_the_arm_of_its_period(demo):
    log, _, messages = demo
    back = rfms.open_log(str(log))
    assert back.error == "", back.error
    columns = back.signals(LOGGED)
    moving = check_frames(messages, columns, back.dt_ms * 1e-3, rfms.Robot.load(str(ROBOT)))
    assert moving > 100  # the example's moves, seen picture by picture


def test_the_pictures_show_the_world_model_and_each_moves_target(demo):
    """From the requests and events the log holds: the example's home, and its target through both
    moves (22 s of them)."""
    _, _, messages = demo
    home = rfms.trans(0.2032, -0.12623, 0.2032)
    targets = check_world(messages, {"position/home": home, "transform/t2": home})
    assert len(targets) > 0.9 * 22 * 1000 / 17


def test_pictures_come_at_most_sixty_a_second_for_the_whole_run(demo):
    log, _, messages = demo
    back = rfms.open_log(str(log))
    stamps = np.array([int(m["timestamp"]) for m in messages if m["topic"] == "/frames"]) * 1e-9
    assert np.all(np.diff(stamps) >= 1 / 60 - 1e-9)
    run_s = back.periods * back.dt_ms * 1e-3
    assert len(stamps) >= 0.95 * run_s / (17 * back.dt_ms * 1e-3)  # one every 17 periods at 1 kHz: 58.8 a second
    for m in messages:  # each message's own stamp is its log time
        if m["topic"] == "/frames":
            for f in m["message"]["transforms"]:
                assert int(f["timestamp"]["seconds"]) * 10**9 + int(f["timestamp"]["nanos"]) == int(m["timestamp"])


def test_the_scene_has_the_links_the_table_and_the_tool(demo):
    _, _, messages = demo
    scenes = [m["message"] for m in messages if m["topic"] == "/scene"]
    for s in scenes:
        by_id = {e["id"]: e for e in s["entities"]}
        assert set(by_id) == {"arm", "surfaces", "tool"}
        assert len(by_id["arm"]["cylinders"]) == 3  # the PUMA 260's shoulder offset, upper arm and forearm
        assert len(by_id["surfaces"]["cubes"]) >= 1
    # The example presses nothing: no picture draws a contact force.
    assert not any(e["arrows"] for s in scenes for e in s["entities"])


def test_replay_reads_the_log_as_before(demo):
    log, figures, _ = demo
    verify = subprocess.run([str(BIN / "rfms-replay"), "verify", str(log)], capture_output=True, text=True,
                            timeout=600)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    info = subprocess.run([str(BIN / "rfms-replay"), "info", str(log)], capture_output=True, text=True, timeout=600)
    assert info.returncode == 0, info.stderr
    assert "undecodable" not in info.stdout
    assert f"(/frames, /scene): {figures['messages']['/frames']}\n" in info.stdout
