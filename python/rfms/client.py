"""The link client: one session with rfms-bridge, the calls of the C++ client library.

Units are SI (metres, radians, seconds, newtons); transforms are 4x4 numpy arrays.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Iterable, Iterator, Optional, Sequence, Union

import numpy as np

from . import _rfms

Force = _rfms.Force


def _known(cls, d: dict) -> dict:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in d.items() if k in names}


@dataclasses.dataclass
class ForceFigures:
    """How well a move under force control held its force (docs/force.md)."""

    setpoint_n: float
    error_p50_n: float
    error_p99_n: float
    error_max_n: float
    peak_n: float
    settle_s: float  # -1: never
    end_pose: Optional[np.ndarray]
    final_n: float
    law_n: float
    settle_final_s: float
    held: bool
    impedance: bool
    start_n: float
    overshoot_final: float


@dataclasses.dataclass
class MoveOutcome:
    """How a move ended (wait() returns it for a move that did what it was asked)."""

    id: int
    completed: bool
    guard_tripped: bool  # a guarded motion that met its force: where and with what force
    contact_pose: Optional[np.ndarray]
    contact_force: np.ndarray
    force: Optional[ForceFigures]
    yielded_m: np.ndarray  # compliance alone: where it came to rest less where its path ended
    guard_missed: bool

    @classmethod
    def _from(cls, d: dict) -> "MoveOutcome":
        d = _known(cls, d)
        if d.get("force") is not None:
            d["force"] = ForceFigures(**_known(ForceFigures, d["force"]))
        return cls(**d)


@dataclasses.dataclass
class ArmStatus:
    """The controller's state as the supervisor last saw it."""

    period: int
    rtstate: str  # IDLE FREE MANU CALIB HOLD MOVE EMGCY ... (proto RtState less its RT_)
    traj_state: str
    reason: str  # the emergency's reason, NONE without one
    reason_node: str
    reason_axis: str  # a force move's emergency: along which axis ("x", "tool z"), "" otherwise
    calibrated: bool
    t6: Optional[np.ndarray]  # T6 of the angles the joints last reported
    angles: np.ndarray  # rad
    last_move_id: int
    ended_through: int  # every move up to this id has ended
    recent_ended: list
    moves_queued: int
    task: str
    link: Optional[dict]
    dt_ms: float
    update_periods: int
    session: int
    watched: list
    watch_rate_hz: float
    samples_dropped: int
    jog_stopped: str
    wrench: np.ndarray
    contact_wrench: np.ndarray
    wrench_saturated: int

    @classmethod
    def _from(cls, d: dict) -> "ArmStatus":
        d = _known(cls, d)
        d["recent_ended"] = [MoveOutcome._from(o) for o in d.get("recent_ended", [])]
        return cls(**d)


@dataclasses.dataclass
class Samples:
    """Samples of watched signals: row i was taken at period[i]; column j is signals[j]."""

    signals: list
    period: np.ndarray  # uint64
    time_s: np.ndarray  # the controller's clock
    values: np.ndarray  # (len(period), len(signals)); NaN where a mail was missing
    dropped: int  # samples lost so far (at the controller, or here unread)

    def __len__(self) -> int:
        return len(self.period)

    def __getitem__(self, signal: str) -> np.ndarray:
        return self.values[:, self.signals.index(signal)]


def _axes(compliance: "str | Iterable[str]") -> list:
    """'xz' or ['x', 'rz'] -> ['x', 'z'] / ['x', 'rz']."""
    if isinstance(compliance, str):
        out, i = [], 0
        while i < len(compliance):
            if compliance[i] == "r":
                out.append(compliance[i : i + 2])
                i += 2
            elif compliance[i] in ", ":
                i += 1
            else:
                out.append(compliance[i])
                i += 1
        return out
    return list(compliance)


class Client:
    """One link session with the bridge: the RFMS/RCCL calls of client/rfms_client.hpp.

    Every request gets the supervisor's answer; a refused one raises RequestRefused with its
    reason and changes nothing. While a call waits on the link the GIL is released. A Client
    serialises its own calls, so threads may share one; each still waits for the others.
    """

    def __init__(self, bridge: str = "127.0.0.1:47031", key: Optional[str] = None,
                 link_timeout_s: float = 0.02, tries: int = 100) -> None:
        self._c = _rfms.Client(bridge, key or "", link_timeout_s, tries)

    # Task and world model -------------------------------------------------------------------
    def begin_task(self, name: str) -> None:
        """Opens a task: the names it defines are its own until end_task()."""
        self._c.begin_task(name)

    def end_task(self) -> None:
        self._c.end_task()

    def transform(self, name: str, value: np.ndarray) -> None:
        """Defines or updates a named transform (4x4); positions using it follow, during a move too."""
        self._c.transform(name, np.asarray(value, dtype=float))

    def position(self, name: str, config: str, lhs: Sequence[str], rhs: Sequence[str], tool: str = "") -> None:
        """A position equation, e.g. position('home', 'righty,down,flip', ['T6'], ['t2']).

        "T6" stands once on either side; the tool, if any, right after it and named in `tool`.
        """
        self._c.position(name, config, list(lhs), list(rhs), tool)

    def motion(self, name: str, segment_s: float, accel_s: float, mode: str = "joint", *,
               compliance: "str | Iterable[str]" = "", track: bool = False, guard_n: float = 0.0,
               compensation: float = 0.0, compensator: Optional[dict] = None,
               force: Optional[Force] = None) -> None:
        """A motion record: its options compose (a tracking motion that complies along z, ...).

        mode: 'joint' or 'cartesian'. compliance: axes of x y z rx ry rz ('xz' or ['x', 'rz']).
        track: keep following the position as its transforms change, until stop() or the next
        move. guard_n: end where the contact force first reaches this (N). compensation: k1 of a
        compliant wrist (0 .. 1). compensator: its other terms, any of rate_s, acceleration_s2,
        lead_s, lag_s (e.g. {'lag_s': 0.05}). force: a Force() (press, spring, damp, law).
        """
        self._c.motion(name, segment_s, accel_s, mode, _axes(compliance), track, guard_n, compensation,
                       dict(compensator or {}), force)

    def forget(self, kind: str, name: str) -> None:
        """Forgets a 'transform', 'position' or 'motion' this key defined."""
        self._c.forget(kind, name)

    # Moves ----------------------------------------------------------------------------------
    def move(self, position: str, motion: str) -> int:
        """Queues a move; returns its id."""
        return self._c.move(position, motion)

    def wait(self, move: int, timeout_s: float = 600.0) -> MoveOutcome:
        """Until the move has ended; MoveFailed if it did not do what it was asked."""
        return MoveOutcome._from(self._c.wait(move, timeout_s))

    def wait_all(self, timeout_s: float = 600.0) -> None:
        """Until every move accepted so far has ended."""
        self._c.wait_all(timeout_s)

    def status(self) -> ArmStatus:
        return ArmStatus._from(self._c.status())

    # Controls -------------------------------------------------------------------------------
    def calibrate(self) -> None:
        """Calibrates (if the arm is not) and waits until every joint has found its index."""
        self._c.calibrate()

    def hold(self) -> None:
        self._c.hold()

    def free(self) -> None:
        self._c.free()

    def stop(self) -> None:
        self._c.stop()

    def reset(self) -> None:
        self._c.reset()

    def power_off(self) -> None:
        self._c.power_off()

    def emergency_stop(self) -> None:
        self._c.emergency_stop()

    def jog(self, target: Union[int, str], direction: int, *, counts: int = 0, angle: float = 0.0,
            distance: float = 0.0, tool_frame: bool = False) -> None:
        """A jog, as a task file's `jog` says it: joint 1..6 or an axis 'x' 'y' 'z' 'rx' 'ry' 'rz'
        (of the base frame, or T6's own with tool_frame), direction +1/-1; without a step's size
        (counts, angle in rad, distance in m) on until hold()/stop(), with one a step."""
        self._c.jog(target, direction, counts, angle, distance, tool_frame)

    # Watching -------------------------------------------------------------------------------
    def watch(self, signals: Sequence[str], rate_hz: float, *, until: Optional[int] = None,
              seconds: Optional[float] = None, poll_s: float = 0.02) -> Iterator[Samples]:
        """Samples of the controller's signals ('jmail.3.angle', 'smail.t6.m[3]', ...), as they come.

        Yields a Samples batch each time the controller has sent some. Ends after move `until`
        has ended (with every sample up to then), after `seconds`, or when the loop breaks; the
        watch is then ended at the controller.
        """
        self._c.watch(list(signals), rate_hz)
        deadline = None if seconds is None else time.monotonic() + seconds
        try:
            while True:
                status = self._c.status()  # drains the samples into this client's store
                batch = self._take()
                if len(batch):
                    yield batch
                if until is not None and status["ended_through"] >= until:
                    return
                if deadline is not None and time.monotonic() >= deadline:
                    return
                time.sleep(poll_s)
        finally:
            try:
                self._c.watch([], 0.0)
            except Exception:  # the controller ends an unasked watch by itself
                pass

    def _take(self) -> Samples:
        period, values, signals, dt_ms, dropped = self._c.take_samples()
        return Samples(list(signals), period, period.astype(float) * dt_ms * 1e-3, values, dropped)

    @property
    def session(self) -> int:
        return self._c.session


class _Task:
    def __init__(self, client: Client, task: Optional[str]) -> None:
        self.client, self.task = client, task

    def __enter__(self) -> Client:
        if self.task:
            self.client.begin_task(self.task)
        return self.client

    def __exit__(self, kind, error, trace) -> None:
        if not self.task:
            return
        try:
            self.client.end_task()
        except Exception:
            if error is None:
                raise  # the block went well: its task's end failing is news


def connect(bridge: str = "127.0.0.1:47031", key: Optional[str] = None, task: Optional[str] = "python", *,
            link_timeout_s: float = 0.02, tries: int = 100) -> _Task:
    """A session with the bridge, as a context manager that opens a task and closes it:

        with rfms.connect("127.0.0.1:47031", key="run/keys/operator.key") as arm:
            arm.calibrate()
            arm.transform("t2", rfms.trans(0.2032, -0.12623, 0.2032))
            ...

    key: this client's key file (deploy/rfms keys); None for a bridge started with --insecure.
    task: the task's name; None to open none. The link gives up after `tries` sends of one
    request, `link_timeout_s` apart, with LinkError.
    """
    return _Task(Client(bridge, key, link_timeout_s, tries), task)
