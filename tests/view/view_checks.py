"""What the view's process tests check of what a Foxglove client received, against a run log:
S_MAILs equal to the logged ones to the bit and none missing, the `setpoint` frame equal to the
logged S_MAIL's T6, and `t6` equal to the forward kinematics of the joints' logged angles. And how
a run log's display channels are read as Foxglove opens a file (tools/mcap-check/messages.mjs)."""

import json
import pathlib
import subprocess
from typing import Dict, List, Tuple

import numpy as np

import rfms
from cluster import SOURCE

MCAP_CHECK = SOURCE / "tools" / "mcap-check"

TRANSFORM_TOL = 1e-9  # a transform read back through its quaternion
LOGGED = [f"jmail.{j}.angle" for j in range(1, 7)] + [f"smail.t6.m[{i}]" for i in range(12)]


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


def logged_row(columns: Dict[str, np.ndarray], period: int, dt: float) -> int:
    row = int(np.searchsorted(columns["time_s"], period * dt - dt / 4))
    assert row < len(columns["time_s"]) and abs(columns["time_s"][row] - period * dt) < dt / 4, period
    return row


def logged_setpoint(columns: Dict[str, np.ndarray], row: int) -> np.ndarray:
    return np.vstack([np.array([columns[f"smail.t6.m[{i}]"][row] for i in range(12)]).reshape(3, 4), [0, 0, 0, 1]])


def check_smails(messages: List[dict], columns: Dict[str, np.ndarray], dt: float) -> List[int]:
    """Every S_MAIL received equals the logged one of its period; returns their periods."""
    periods = []
    for m in messages:
        if m["topic"] != "/rfms/smail":
            continue
        s = m["message"]
        k = int(s["header"]["period"])
        row = logged_row(columns, k, dt)
        assert s["t6"]["m"] == [columns[f"smail.t6.m[{i}]"][row] for i in range(12)], k  # JSON keeps every bit
        periods.append(k)
    return periods


def check_frames(messages: List[dict], columns: Dict[str, np.ndarray], dt: float, robot: "rfms.Robot") -> int:
    """Every /frames message is the arm of its period; returns how many were taken while the
    setpoint moved."""
    moving, before = 0, None
    for m in messages:
        if m["topic"] != "/frames":
            continue
        k = int(round(int(m["timestamp"]) * 1e-9 / dt))
        row = logged_row(columns, k, dt)
        by_name = {f["child_frame_id"]: f for f in m["message"]["transforms"]}
        assert {"link1", "link5", "t6", "tool", "setpoint"} <= by_name.keys()
        q = np.array([columns[f"jmail.{j}.angle"][row] for j in range(1, 7)])
        np.testing.assert_allclose(frame_matrix(by_name["t6"]), robot.fk(q), atol=TRANSFORM_TOL, rtol=0)
        setpoint = logged_setpoint(columns, row)
        np.testing.assert_allclose(frame_matrix(by_name["setpoint"]), setpoint, atol=TRANSFORM_TOL, rtol=0)
        moving += before is not None and not np.allclose(setpoint, before, atol=1e-6)
        before = setpoint
    return moving


def world_frames(messages: List[dict]) -> Tuple[Dict[str, np.ndarray], List[np.ndarray]]:
    """The world model's frames as the last /frames message that had them showed them
    ("position/NAME", "transform/NAME"), and every `target` frame shown, in order."""
    world: Dict[str, np.ndarray] = {}
    targets = []
    for m in messages:
        if m["topic"] != "/frames":
            continue
        by_name = {f["child_frame_id"]: f for f in m["message"]["transforms"]}
        if "target" in by_name:
            targets.append(frame_matrix(by_name["target"]))
        shown = {n: frame_matrix(f) for n, f in by_name.items() if n.startswith(("position/", "transform/"))}
        if shown:
            world = shown
    return world, targets


def check_world(messages: List[dict], frames: Dict[str, np.ndarray]) -> List[np.ndarray]:
    """The world's frames drawn where the task put them (`frames`: {"position/NAME": pose,
    "transform/NAME": pose}, all of them), and every target one of the positions; returns the
    targets shown."""
    world, targets = world_frames(messages)
    assert set(world) == set(frames), sorted(world)
    for name, pose in frames.items():
        np.testing.assert_allclose(world[name], pose, atol=TRANSFORM_TOL, rtol=0, err_msg=name)
    positions = [pose for name, pose in frames.items() if name.startswith("position/")]
    for t in targets:
        assert any(np.allclose(t, pose, atol=TRANSFORM_TOL, rtol=0) for pose in positions), t
    return targets


def read_display(log: pathlib.Path, out: pathlib.Path) -> dict:
    """A log's /frames and /scene read by @mcap/core: the file's figures, and the messages, one JSON
    line each in foxglove_probe.cjs's form, in `out`."""
    modules = MCAP_CHECK / "node_modules"
    assert (modules / "@mcap" / "core").is_dir(), f"{modules} lacks the official MCAP reader: run deploy/install-deps --for-tests"
    probe = subprocess.run(["node", str(MCAP_CHECK / "messages.mjs"), str(log), str(out), "/frames", "/scene"],
                           capture_output=True, text=True, timeout=300)
    assert probe.returncode == 0, probe.stderr
    return json.loads(probe.stdout)
