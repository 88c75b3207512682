"""Run logs (run.mcap) read back by the project's own reader."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

from . import _rfms


class RunLog:
    """A run log: its signals by the names `rfms-replay export` takes (docs/run-logs.md),
    e.g. 'jmail.3.angle', 'smail.t6.m[3]', 'torque.2.torque', and its events."""

    def __init__(self, path: str) -> None:
        self._log = _rfms.Log(path)
        self.path = path

    def signals(self, names: Optional[Sequence[str]] = None) -> Dict[str, np.ndarray]:
        """{'time_s': ..., name: ...}: one entry per period, NaN where a period lacks the value.

        No names: each joint's servo setpoint and measured angle. A name that does not resolve,
        or has no value in the log, raises ConfigError naming it and the fields there are.
        """
        time_s, values, got = self._log.signals(list(names or []))
        out = {"time_s": time_s}
        for j, name in enumerate(got):
            out[name] = values[:, j]
        return out

    def signal(self, name: str) -> np.ndarray:
        return self.signals([name])[name]

    def events(self) -> List[dict]:
        """Moves started, completed and aborted, state changes and emergencies, in order."""
        return self._log.events()

    @property
    def header(self) -> Dict[str, str]:
        return dict(self._log.header)

    @property
    def dt_ms(self) -> float:
        return self._log.dt_ms

    @property
    def periods(self) -> int:
        return self._log.periods

    @property
    def error(self) -> str:
        """Empty when the file is sound; else where it is damaged (what came before was read)."""
        return self._log.error


def open_log(path: str) -> RunLog:
    """Reads a run log (a run's run.mcap, or a fault record) once."""
    return RunLog(path)
