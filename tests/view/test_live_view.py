"""rfms-view beside a running cluster, seen by Foxglove's own client library: what it draws is
what the cluster did. A paced cluster moves the arm while tests/view/foxglove_probe.cjs (Foxglove's
npm client, @foxglove/ws-protocol) subscribes to the frames and to S_MAIL and decodes them with
the schemas rfms-view advertised; afterwards every message is checked, period by period, against
the run log the supervisor wrote: S_MAIL to the bit, the setpoint frame to the quaternion's
rounding, and T6 against the forward kinematics of the joints' logged angles."""

import json
import pathlib
import subprocess

import numpy as np
import pytest

import rfms
from cluster import ROBOT, SOURCE, paced_cluster

PROBE = pathlib.Path(__file__).resolve().parent / "foxglove_probe.cjs"
UP = rfms.trans(0.220, -0.12624, 0.280) @ rfms.rpy(0, np.pi / 2, 0)
DOWN = rfms.trans(0.220, -0.12624, 0.120) @ rfms.rpy(0, np.pi / 2, 0)
TRANSFORM_TOL = 1e-9  # a transform read back through its quaternion


def quaternion_matrix(q: dict) -> np.ndarray:
    x, y, z, w = (q.get(k, 0.0) for k in ("x", "y", "z", "w"))
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def frame_matrix(f: dict) -> np.ndarray:
    t = np.eye(4)
    t[:3, :3] = quaternion_matrix(f["rotation"])
    t[:3, 3] = [f["translation"].get(k, 0.0) for k in ("x", "y", "z")]
    return t


@pytest.fixture(scope="module")
def seen(tmp_path_factory):
    """What the probe received during two moves, and the run log of the same run."""
    web = SOURCE / "view" / "web" / "node_modules"
    assert (web / "@foxglove" / "ws-protocol").is_dir(), f"{web} lacks Foxglove's client: deploy/install-deps --for-tests"
    out = tmp_path_factory.mktemp("probe") / "probe.jsonl"
    with paced_cluster("rfms-view-", ["--view", "127.0.0.1:0"]) as c:
        port = int((c.run / "view.port").read_text())
        with rfms.connect(c.bridge, c.key(), task="view") as arm:
            arm.calibrate()
            arm.transform("up", UP)
            arm.transform("down", DOWN)
            arm.position("up", "righty,down,flip", ["T6"], ["up"])
            arm.position("down", "righty,down,flip", ["T6"], ["down"])
            arm.motion("line", 1.0, 0.2, "cartesian")
            probe = subprocess.Popen(["node", str(PROBE), f"ws://127.0.0.1:{port}", "120", str(out), "/frames",
                                      "/rfms/smail"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                assert probe.stdout.readline().strip() == "subscribed", probe.stderr.read()
                arm.wait(arm.move("up", "line"))
                arm.wait(arm.move("down", "line"))
                probe.terminate()
                said, complaint = probe.communicate(timeout=60)
            finally:
                probe.kill()
        assert probe.returncode == 0, complaint
        c.down()  # the log is whole once the supervisor has stopped
        log = rfms.open_log(str(c.run / "run.mcap"))
        assert log.error == "", log.error
        names = [f"jmail.{j}.angle" for j in range(1, 7)] + [f"smail.t6.m[{i}]" for i in range(12)]
        columns = log.signals(names)
        dt = log.dt_ms * 1e-3
        messages = [json.loads(line) for line in out.read_text().splitlines()]
        yield messages, columns, dt


def period_of(stamp_ns: str, dt: float) -> int:
    return int(round(int(stamp_ns) * 1e-9 / dt))


def logged_row(columns: dict, period: int, dt: float) -> int:
    row = int(np.searchsorted(columns["time_s"], period * dt - dt / 4))
    assert row < len(columns["time_s"]) and abs(columns["time_s"][row] - period * dt) < dt / 4, period
    return row


def test_s_mail_is_the_logged_s_mail(seen):
    messages, columns, dt = seen
    smails = [m["message"] for m in messages if m["topic"] == "/rfms/smail"]
    assert len(smails) > 100
    for s in smails:
        k = int(s["header"]["period"])
        row = logged_row(columns, k, dt)
        logged = [columns[f"smail.t6.m[{i}]"][row] for i in range(12)]
        assert s["t6"]["m"] == logged, k  # JSON keeps a double's every bit


def test_frames_are_the_arm_of_their_period(seen):
    messages, columns, dt = seen
    robot = rfms.Robot.load(str(ROBOT))
    frames = [m for m in messages if m["topic"] == "/frames"]
    assert len(frames) >= 10
    moving = 0
    for m in frames:
        k = period_of(m["timestamp"], dt)
        row = logged_row(columns, k, dt)
        by_name = {f["child_frame_id"]: f for f in m["message"]["transforms"]}
        assert {"link1", "link5", "t6", "tool", "setpoint"} <= by_name.keys()
        q = np.array([columns[f"jmail.{j}.angle"][row] for j in range(1, 7)])
        np.testing.assert_allclose(frame_matrix(by_name["t6"]), robot.fk(q), atol=TRANSFORM_TOL, rtol=0)
        setpoint = np.vstack([np.array([columns[f"smail.t6.m[{i}]"][row] for i in range(12)]).reshape(3, 4),
                              [0, 0, 0, 1]])
        np.testing.assert_allclose(frame_matrix(by_name["setpoint"]), setpoint, atol=TRANSFORM_TOL, rtol=0)
        moving += not np.allclose(setpoint[:3, 3], UP[:3, 3], atol=1e-4)
    assert moving > 0  # some frames were taken while the arm moved


def test_a_mailbox_subscriber_gets_every_mail(seen):
    """Mailboxes go at full rate to a viewer that subscribed: every S_MAIL, once, in order."""
    messages, columns, dt = seen
    k = [int(m["message"]["header"]["period"]) for m in messages if m["topic"] == "/rfms/smail"]
    assert k == list(range(k[0], k[0] + len(k)))
