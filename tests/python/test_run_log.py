"""rfms.open_log against rfms-replay on a run log that rfms-sim writes for the test."""

import csv
import io
import math
import subprocess

import numpy as np
import pytest

import rfms
from conftest import BIN, SOURCE

SIGNALS = ["jmail.1.angle", "jmail.2.servo_setpoint", "smail.t6.m[3]", "torque.3.torque", "smail.rtstate"]


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "run.mcap"
    subprocess.run([str(BIN / "rfms-sim"), "--task", str(SOURCE / "examples" / "line.task"), "--log", str(path)],
                   capture_output=True, timeout=300, check=True)
    return path


def test_signals_are_the_columns_rfms_replay_exports(log_path):
    log = rfms.open_log(str(log_path))
    got = log.signals(SIGNALS)
    exported = subprocess.run([str(BIN / "rfms-replay"), "export", str(log_path), "--csv", "--signals", ",".join(SIGNALS)],
                              capture_output=True, text=True, timeout=120, check=True).stdout
    rows = list(csv.reader(io.StringIO(exported)))
    assert rows[0] == ["time_s"] + SIGNALS
    rows = rows[1:]
    assert len(rows) == len(got["time_s"]) == log.periods
    for i in range(0, len(rows), 97):  # the CSV has 10 significant digits
        for j, name in enumerate(["time_s"] + SIGNALS):
            want = float(rows[i][j]) if rows[i][j] else math.nan
            assert got[name][i] == pytest.approx(want, rel=1e-9, abs=1e-12, nan_ok=True), (name, i)


def test_the_header_and_events_say_what_ran(log_path):
    log = rfms.open_log(str(log_path))
    assert log.dt_ms == 1.0
    assert log.error == ""
    assert log.header  # the run's metadata: robot, settings, ...
    kinds = [e["kind"] for e in log.events()]
    assert kinds.count("STARTED") == 2 and kinds.count("COMPLETED") == 2  # LogEvent's MOVE_STARTED ...
    # The default signals: each joint's servo setpoint and angle; the arm ends where the task left it.
    s = log.signals()
    assert len(s) == 1 + 12
    assert np.isfinite(s["jmail.6.angle"][-1])


def test_a_wrong_signal_or_file_is_refused_by_name(log_path, tmp_path):
    log = rfms.open_log(str(log_path))
    with pytest.raises(rfms.ConfigError, match="jmail.1.angel"):
        log.signals(["jmail.1.angel"])
    with pytest.raises(rfms.ConfigError, match="cannot open"):
        rfms.open_log(str(tmp_path / "none.mcap"))
    junk = tmp_path / "junk.mcap"
    junk.write_bytes(b"not a log at all" * 10)
    with pytest.raises(rfms.ConfigError, match="not an MCAP file"):
        rfms.open_log(str(junk))
