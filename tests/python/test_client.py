"""rfms.connect against a paced cluster: the calls, every exception type from a real cause, a key
the bridge does not admit, the GIL released while a call waits, and a 200 Hz watch without gaps."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import rfms
from conftest import free_udp_port

HOME = rfms.trans(0.2032, -0.12623, 0.2032)
UP = rfms.trans(0.220, -0.12624, 0.280) @ rfms.rpy(0, np.pi / 2, 0)
DOWN = rfms.trans(0.220, -0.12624, 0.120) @ rfms.rpy(0, np.pi / 2, 0)


@pytest.fixture(scope="module")
def arm(cluster):
    """The operator's session, a task open, the arm calibrated and standing above the table."""
    with rfms.connect(cluster.bridge, cluster.key(), task="pytest") as a:
        a.calibrate()
        a.transform("up", UP)
        a.transform("down", DOWN)
        a.position("up", "righty,down,flip", ["T6"], ["up"])
        a.position("down", "righty,down,flip", ["T6"], ["down"])
        a.motion("reach", 1.0, 0.2, "joint")
        a.motion("line", 1.0, 0.2, "cartesian")
        a.wait(a.move("up", "reach"))
        yield a


def test_a_move_ends_where_it_was_sent(arm):
    outcome = arm.wait(arm.move("down", "line"))
    assert isinstance(outcome, rfms.MoveOutcome)
    assert outcome.completed and not outcome.guard_missed
    status = arm.status()
    assert status.rtstate in ("SETP", "HOLD") and status.calibrated and status.task == "pytest"
    assert np.linalg.norm(status.t6[:3, 3] - DOWN[:3, 3]) < 1e-3
    assert status.angles.shape == (6,)
    arm.wait(arm.move("up", "line"))


def test_a_refusal_raises_request_refused_with_the_reason_and_changes_nothing(arm):
    before = arm.status()
    arm.transform("far", rfms.trans(5.0, 0.0, 0.0))  # defining is not reaching
    arm.position("far", "righty,down,flip", ["T6"], ["far"])
    with pytest.raises(rfms.RequestRefused) as refused:
        arm.move("far", "line")  # out of reach: refused before it is queued
    assert refused.value.code is rfms.Refusal.UNREACHABLE, refused.value
    assert "'far'" in str(refused.value) and refused.value.code == "unreachable"
    assert isinstance(refused.value, ValueError)
    with pytest.raises(rfms.RequestRefused) as unknown:
        arm.move("nowhere", "line")
    assert unknown.value.code is rfms.Refusal.UNKNOWN_NAME, unknown.value
    with pytest.raises(rfms.RequestRefused) as bad:
        arm.motion("bad", 1.0, 0.9, "joint")  # acceleration longer than half the segment
    assert bad.value.code is rfms.Refusal.INVALID, bad.value
    with pytest.raises(rfms.RequestRefused) as lacking:  # the default scene has no compliant wrist
        arm.motion("comp", 1.0, 0.2, "cartesian", compensation=1.0, compensator={"lead_s": 0.01, "lag_s": 0.0})
    assert lacking.value.code is rfms.Refusal.SCENE_LACKS, lacking.value
    with pytest.raises(ValueError, match="not a term"):
        arm.motion("comp", 1.0, 0.2, "cartesian", compensation=1.0, compensator={"lag": 0.0})
    after = arm.status()
    assert after.last_move_id == before.last_move_id and after.moves_queued == 0
    arm.forget("position", "far")
    arm.forget("transform", "far")


def test_a_stopped_move_raises_move_failed(arm):
    arm.motion("slow", 6.0, 0.5, "cartesian")
    move = arm.move("down", "slow")
    time.sleep(0.5)
    arm.stop()
    with pytest.raises(rfms.MoveFailed, match="aborted"):
        arm.wait(move, 60.0)
    assert arm.status().rtstate != "EMGCY"  # a stop is not an emergency
    arm.wait(arm.move("up", "reach"))


def test_ctrl_c_interrupts_a_wait(arm):
    # A notebook's Ctrl-C is SIGINT to the interpreter: it must end a wait on a long move at once.
    arm.motion("long", 8.0, 0.5, "cartesian")
    move = arm.move("down", "long")
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            arm.wait(move)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 3.0  # not the move's 8 s
    arm.stop()
    with pytest.raises(rfms.MoveFailed, match="aborted"):
        arm.wait(move, 60.0)
    arm.wait(arm.move("up", "reach"))


def test_a_guard_never_met_raises_move_failed(arm):
    arm.motion("feel", 1.0, 0.2, "cartesian", guard_n=30.0)  # the path stays in the air
    with pytest.raises(rfms.MoveFailed, match="guard"):
        arm.wait(arm.move("down", "feel"))
    arm.wait(arm.move("up", "line"))


def test_a_dead_link_raises_link_error(cluster):
    nobody = f"127.0.0.1:{free_udp_port()}"
    client = rfms.Client(nobody, cluster.key(), link_timeout_s=0.01, tries=5)
    with pytest.raises(rfms.LinkError) as e:
        client.status()
    assert isinstance(e.value, ConnectionError)


def test_a_key_the_bridge_does_not_admit_is_refused(cluster):
    stranger = rfms.Client(cluster.bridge, None, link_timeout_s=0.02, tries=20)  # a fresh key
    with pytest.raises(rfms.LinkError, match="not among the bridge's allowed keys"):
        stranger.status()


def test_an_observer_may_look_but_not_command(cluster, arm):
    observer = rfms.Client(cluster.bridge, cluster.key("observer"))
    assert observer.status().calibrated
    with pytest.raises(rfms.RequestRefused):
        observer.begin_task("mine")


def test_the_gil_is_released_while_a_call_waits(arm):
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    t = threading.Thread(target=tick)
    t.start()
    try:
        move = arm.move("down", "line")
        started = len(ticks)
        arm.wait(move)  # one call into C++ for about a second
        during = len(ticks) - started
    finally:
        stop.set()
        t.join()
    assert during >= 20  # the thread ran meanwhile (a held GIL would let it run once or not at all)
    arm.wait(arm.move("up", "line"))


def test_a_watch_at_200_hz_delivers_every_sample(arm):
    signals = ["jmail.1.angle", "jmail.2.servo_error", "smail.t6.m[11]"]
    move = arm.move("down", "line")
    batches = list(arm.watch(signals, 200.0, until=move, seconds=60.0))  # bounded, should the move hang
    period = np.concatenate([b.period for b in batches])
    values = np.concatenate([b.values for b in batches])
    status = arm.status()
    step = round(1000.0 / status.dt_ms / 200.0)  # periods between samples
    assert len(period) >= 150  # a one-second move, and the watch began before it
    assert np.all(np.diff(period.astype(np.int64)) == step)  # no gap, no repeat
    assert batches[-1].dropped == 0
    assert values.shape == (len(period), 3) and np.all(np.isfinite(values))
    assert batches[0].signals == signals and np.array_equal(batches[0]["smail.t6.m[11]"], batches[0].values[:, 2])
    # T6's z over the samples runs from up to down.
    assert values[0, 2] == pytest.approx(UP[2, 3], abs=2e-3) and values[-1, 2] == pytest.approx(DOWN[2, 3], abs=2e-3)
    arm.wait(arm.move("up", "line"))


def test_a_force_motion_reports_its_figures(arm):
    # examples/press.task: the probe leaning 30 deg, 23 mm above the table; the path aims 27 mm into it.
    arm.transform("above", rfms.trans(0.220, -0.12624, -0.120) @ rfms.rpy(0, np.radians(150), 0))
    arm.transform("below", rfms.trans(0.220, -0.12624, -0.170) @ rfms.rpy(0, np.radians(150), 0))
    arm.position("start", "righty,down,flip", ["T6"], ["above"])
    arm.position("press", "righty,down,flip", ["T6"], ["below"])
    arm.motion("touch", 2.0, 0.2, "cartesian", guard_n=2.0)
    arm.motion("push", 3.0, 0.5, "cartesian", force=rfms.Force().press("z", -10.0))
    arm.motion("wild", 3.0, 0.5, "cartesian", force=rfms.Force().press("z", -10.0).law("p", 5.0))
    arm.wait(arm.move("start", "reach"))
    touched = arm.wait(arm.move("press", "touch"))
    assert touched.guard_tripped and touched.contact_pose.shape == (4, 4)
    assert touched.contact_force[2] > 0.0  # the table pushes up
    pushed = arm.wait(arm.move("press", "push"))
    assert pushed.force is not None and pushed.force.held
    assert pushed.force.setpoint_n == pytest.approx(10.0)
    with pytest.raises(rfms.RequestRefused) as wild:
        arm.move("press", "wild")  # checked against the table's stiffness before it runs
    assert wild.value.code is rfms.Refusal.UNSTABLE, wild.value
    arm.wait(arm.move("start", "reach"))
    arm.wait(arm.move("up", "reach"))
