"""The view's page in Debian's headless Chromium, beside a paced cluster: what it draws is the arm
of the period it says, its commands need the token, and its stop button stops the arm. The page
is driven by tests/view/desk_driver.cjs (playwright-core), a command at a time, between the moves
an operator's client makes."""

import json
import pathlib
import select
import subprocess
import time

import numpy as np
import pytest

import rfms
from cluster import SOURCE, paced_cluster
from view_checks import logged_row

DRIVER = pathlib.Path(__file__).resolve().parent / "desk_driver.cjs"
UP = rfms.trans(0.220, -0.12624, 0.280) @ rfms.rpy(0, np.pi / 2, 0)
DOWN = rfms.trans(0.220, -0.12624, 0.120) @ rfms.rpy(0, np.pi / 2, 0)
POSE_TOL = 1e-6  # rad


class Page:
    def __init__(self) -> None:
        self.p = subprocess.Popen(["node", str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, line: str, timeout_s: float = 90.0) -> dict:
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        ready, _, _ = select.select([self.p.stdout], [], [], timeout_s)
        assert ready, f"the page's driver did not answer '{line}' within {timeout_s} s"
        answer = self.p.stdout.readline()
        assert answer, f"the page's driver ended at '{line}'"
        return json.loads(answer)

    def close(self) -> None:
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.flush()
            self.p.wait(timeout=30)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            pass
        self.p.kill()
        self.p.wait(timeout=30)


def changed_share(a: pathlib.Path, b: pathlib.Path, right: int) -> float:
    """The share of the 3D view's pixels (left of `right`) that differ between two screenshots."""
    import matplotlib.image
    x, y = matplotlib.image.imread(str(a))[:, :right, :3], matplotlib.image.imread(str(b))[:, :right, :3]
    return float(np.mean(np.any(np.abs(x - y) > 0.02, axis=2)))


@pytest.fixture(scope="module")
def desk(tmp_path_factory):
    assert pathlib.Path("/usr/bin/chromium").exists(), "no /usr/bin/chromium: run deploy/install-deps --for-tests"
    shots = tmp_path_factory.mktemp("desk")
    page = Page()
    seen = {"poses": [], "shots": shots}
    try:
        with paced_cluster("rfms-desk-", ["--view", "127.0.0.1:0", "--desk-operator"]) as c:
            base = f"http://127.0.0.1:{(c.run / 'view.port').read_text().strip()}/"
            token = (c.run / "view.token").read_text().strip()
            assert page(f"open {base}")["errors"] == []
            seen["without_token"] = page("command calibrate")["status"]
            assert page(f"open {base}?token={token}")["ok"]
            seen["calibrate"] = page("command calibrate")["status"]
            page(f"shot {shots / 'before.png'}")
            with rfms.connect(c.bridge, c.key(), task="desk") as arm:
                for name, where in (("up", UP), ("down", DOWN)):
                    arm.transform(name, where)
                    arm.position(name, "righty,down,flip", ["T6"], [name])
                arm.motion("reach", 2.0, 0.4, "joint")
                arm.motion("slow", 8.0, 0.5, "cartesian")
                move = arm.move("up", "reach")
                while arm.status().moves_queued > 0:  # the page's pose, sampled through the move
                    seen["poses"].append(page("pose"))
                    time.sleep(0.1)
                arm.wait(move)
                time.sleep(0.5)  # the page's next pictures
                page(f"shot {shots / 'after.png'}")
                slow = arm.move("down", "slow")
                time.sleep(1.5)
                t0 = time.monotonic()
                page("click stop")
                try:
                    seen["slow"] = arm.wait(slow, 60.0)
                except rfms.MoveFailed as e:
                    seen["slow"] = e
                seen["stopped_after_s"] = time.monotonic() - t0
                seen["rtstate"] = arm.status().rtstate
                seen["answer"] = page("text answer")["text"]
            # The page's jog button sends the task file's jog statement (the task above closed, the
            # arm at rest in HOLD); a jog with no step's size, which the page never sends, is
            # refused before the link.
            with rfms.connect(c.bridge, c.key(), task=None) as eye:
                deadline = time.monotonic() + 30
                while eye.status().rtstate != "HOLD" and time.monotonic() < deadline:
                    time.sleep(0.1)
            page("click jog2plus")
            deadline = time.monotonic() + 30
            while not page("text answer")["text"].startswith("jog:") and time.monotonic() < deadline:
                time.sleep(0.1)
            seen["jog_button"] = page("text answer")["text"]
            seen["jog_unsized"] = page('command jog "jog 2 +"')["status"]
            c.down()
            log = rfms.open_log(str(c.run / "run.mcap"))
            seen["columns"] = log.signals([f"jmail.{j}.angle" for j in range(1, 7)])
            seen["dt"] = log.dt_ms * 1e-3
            seen["events"] = log.events()
    finally:
        page.close()
    yield seen


def test_operator_commands_need_the_token(desk):
    assert desk["without_token"] == 403
    assert desk["calibrate"] == 200


def test_the_jog_button_sends_the_task_files_jog(desk):
    assert desk["jog_button"] == "jog: 200 done", desk["jog_button"]
    assert desk["jog_unsized"] == 400


def test_the_pose_drawn_is_the_arm_of_its_period(desk):
    poses = [p for p in desk["poses"] if p.get("angles")]
    assert len(poses) >= 5
    periods = {p["period"] for p in poses}
    assert len(periods) >= 3, "the page's pose did not follow the move"
    for p in poses:
        row = logged_row(desk["columns"], p["period"], desk["dt"])
        logged = [desk["columns"][f"jmail.{j}.angle"][row] for j in range(1, 7)]
        np.testing.assert_allclose(p["angles"], logged, atol=POSE_TOL, rtol=0, err_msg=str(p["period"]))


def test_the_page_shows_the_running_move_and_the_world_model(desk):
    """From the supervisor's status: the move's progress in the list, its target's axes, and the
    frames of the positions and transforms the task defined."""
    moving = [p for p in desk["poses"] if p.get("move")]
    assert len(moving) >= 3, "the page did not show the move running"
    assert all(p["move"]["position"] == "up" and p["move"]["motion"] == "reach" for p in moving)
    assert all(p["target"] for p in moving)
    elapsed = [p["move"]["elapsed_s"] for p in moving]
    assert elapsed == sorted(elapsed) and elapsed[-1] > elapsed[0], elapsed
    assert all(p["move"]["duration_s"] == 2.0 for p in moving)
    assert all(p["unended"] == 1 for p in moving)  # the one move, running: none behind it
    assert set(moving[-1]["worldFrames"]) == {"position/up", "position/down", "transform/up", "transform/down"}


def test_the_picture_changes_where_the_arm_moved(desk):
    share = changed_share(desk["shots"] / "before.png", desk["shots"] / "after.png", right=790)
    assert share > 0.005, f"only {share:.4%} of the 3D view changed"


def test_the_stop_button_stops_the_arm(desk):
    assert desk["answer"].startswith("stop: 200"), desk["answer"]
    assert desk["rtstate"] != "EMGCY"
    ended = [e for e in desk["events"] if e["kind"] in ("ABORTED", "COMPLETED")]
    assert ended and ended[-1]["kind"] == "ABORTED", ended[-1:]
    assert desk["stopped_after_s"] < 5.0  # the 8 s move ended well before its time
