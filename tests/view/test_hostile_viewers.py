"""rfms-view against viewers that break the protocol and requests that probe the page's folder:
each is refused, the server goes on serving, and what they cause in its log stays bounded. No
cluster is needed: rfms-view serves while it waits for a run's mail."""

import contextlib
import http.client
import pathlib
import signal
import subprocess
import tempfile
import time

import pytest

from cluster import BIN, SOURCE

HOSTILE = pathlib.Path(__file__).resolve().parent / "hostile_viewer.cjs"
MAX_VIEWERS = 16  # view/foxglove_server.hpp's default


def start_view(run: pathlib.Path, *extra: str):
    log = open(run / "view.log", "w")
    p = subprocess.Popen([str(BIN / "rfms-view"), "--run-dir", str(run), "--config",
                          str(SOURCE / "deploy" / "clusters" / "local.textproto"), "--view", "127.0.0.1:0", *extra],
                         stdout=log, stderr=subprocess.STDOUT)
    return p, log


@contextlib.contextmanager
def running_view(with_token: bool):
    with tempfile.TemporaryDirectory(prefix="rfms-view-") as run:
        run = pathlib.Path(run)
        extra = []
        if with_token:  # any file will do: the key is read only for a command
            (run / "operator.key").write_text("not read before a command\n")
            extra = ["--operator-key", str(run / "operator.key")]
        p, log = start_view(run, *extra)
        try:
            deadline = time.monotonic() + 30
            while not (run / "view.port").exists() or not (run / "view.port").read_text().strip():
                assert p.poll() is None, (run / "view.log").read_text()
                assert time.monotonic() < deadline, "rfms-view did not start within 30 s"
                time.sleep(0.05)
            token = (run / "view.token").read_text().strip() if extra else ""
            yield p, int((run / "view.port").read_text()), run / "view.log", token
        finally:
            p.kill()
            p.wait(timeout=30)
            log.close()


def get(port: int, path: str, method: str = "GET") -> int:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path)
    return c.getresponse().status


@pytest.fixture()
def view():
    with running_view(False) as v:
        yield v


@pytest.fixture()
def view_with_token():
    with running_view(True) as v:
        yield v


def check_hostile_viewers(view):
    p, port, log, token = view
    r = subprocess.run(["node", str(HOSTILE), f"ws://127.0.0.1:{port}", str(MAX_VIEWERS)] + ([token] if token else []),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert p.poll() is None


def test_protocol_mistakes_foreign_pages_and_extra_viewers_are_refused_and_the_server_goes_on(view):
    check_hostile_viewers(view)


def test_the_token_holders_page_gets_in_beside_every_other_viewer(view_with_token):
    check_hostile_viewers(view_with_token)


def test_only_plain_files_of_the_page_folder_are_served(view):
    p, port, log, _ = view
    for path in ("/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/.git/config", "/no-such-file.html",
                 "/node_modules/../../../CMakeLists.txt"):
        assert get(port, path) == 404, path
    assert get(port, "/", "POST") == 405
    assert p.poll() is None


def test_what_viewers_cause_in_the_log_is_bounded(view):
    p, port, log, _ = view
    for _ in range(3):  # three floods of mistakes and connections, within a few seconds
        subprocess.run(["node", str(HOSTILE), f"ws://127.0.0.1:{port}", str(MAX_VIEWERS)], capture_output=True,
                       timeout=120)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=30) == 0
    lines = log.read_text().splitlines()
    about_viewers = [line for line in lines if "viewer " in line]
    # 3 × (about 30 connections and 11 mistakes), against 5 lines a second and a line saying how
    # many were held back.
    assert len(about_viewers) < 60, "\n".join(about_viewers)
    stopped = [line for line in lines if "stopped:" in line]
    assert stopped and " 0 lines about them not logged" not in stopped[0], lines[-3:]
