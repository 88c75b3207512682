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
from view_checks import LOGGED, check_frames, check_smails, check_world, read_display

PROBE = pathlib.Path(__file__).resolve().parent / "foxglove_probe.cjs"
UP = rfms.trans(0.220, -0.12624, 0.280) @ rfms.rpy(0, np.pi / 2, 0)
DOWN = rfms.trans(0.220, -0.12624, 0.120) @ rfms.rpy(0, np.pi / 2, 0)


@pytest.fixture(scope="module")
def seen(tmp_path_factory):
    """What the probe received during two moves, and the run log of the same run."""
    web = SOURCE / "view" / "web" / "node_modules"
    assert (web / "@foxglove" / "ws-protocol").is_dir(), f"{web} lacks Foxglove's client: run deploy/install-deps --for-tests"
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
        columns = log.signals(LOGGED)
        dt = log.dt_ms * 1e-3
        messages = [json.loads(line) for line in out.read_text().splitlines()]
        # The same run's log, as Foxglove opens the file.
        logged = out.with_name("logged.jsonl")
        read_display(c.run / "run.mcap", logged)
        log_messages = [json.loads(line) for line in logged.read_text().splitlines()]
        yield messages, columns, dt, log_messages


def test_s_mail_is_the_logged_s_mail(seen):
    messages, columns, dt, _ = seen
    assert len(check_smails(messages, columns, dt)) > 100


def test_a_mailbox_subscriber_gets_every_mail(seen):
    """Mailboxes go at full rate to a viewer that subscribed: every S_MAIL, once, in order."""
    messages, columns, dt, _ = seen
    k = check_smails(messages, columns, dt)
    assert k == list(range(k[0], k[0] + len(k)))


def test_frames_are_the_arm_of_their_period(seen):
    messages, columns, dt, _ = seen
    assert sum(m["topic"] == "/frames" for m in messages) >= 10
    assert check_frames(messages, columns, dt, rfms.Robot.load(str(ROBOT))) > 0  # some while the arm moved


def test_the_run_log_shows_the_same_arm(seen):
    """The supervisor's log carries pictures of the arm, drawn from the mail it wrote."""
    _, columns, dt, log_messages = seen
    assert check_frames(log_messages, columns, dt, rfms.Robot.load(str(ROBOT))) > 20


def test_frames_show_the_world_model_and_the_running_moves_target(seen):
    """From the supervisor's status: each position where its equation puts T6, each transform where
    the first position with it puts it, and while a move runs, its target."""
    messages, _, _, log_messages = seen
    for shown in (messages, log_messages):  # live, and in the supervisor's log
        targets = check_world(shown, {"position/up": UP, "transform/up": UP, "position/down": DOWN,
                                      "transform/down": DOWN})
        for pose in (UP, DOWN):
            assert any(np.allclose(t, pose, atol=1e-9, rtol=0) for t in targets), "no frame showed a move's target"
