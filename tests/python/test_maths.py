"""rfms.Robot against the project's C++ called directly (rfms-maths-oracle): the same bits on
1,000 random states, one at a time and stacked; and the refusals a Python user meets."""

import subprocess

import numpy as np
import pytest

import rfms
from conftest import BIN, ROBOT

N = 1000


@pytest.fixture(scope="module")
def robot():
    return rfms.Robot.load(str(ROBOT))


@pytest.fixture(scope="module")
def states(robot):
    rng = np.random.default_rng(20261126)
    lo = np.array([j["q_min"] for j in robot.joints])
    hi = np.array([j["q_max"] for j in robot.joints])
    q = rng.uniform(lo, hi, size=(N, 6))
    qd = rng.uniform(-2.0, 2.0, size=(N, 6))
    qdd = rng.uniform(-5.0, 5.0, size=(N, 6))
    tau = rng.uniform(-3.0, 3.0, size=(N, 6))
    return q, qd, qdd, tau


@pytest.fixture(scope="module")
def oracle(states):
    """Per state: the C++ results as lists of floats, parsed from exact hex."""
    q, qd, qdd, tau = states
    lines = [" ".join(float(x).hex() for x in np.concatenate([q[i], qd[i], qdd[i], tau[i]])) for i in range(N)]
    out = subprocess.run([str(BIN / "rfms-maths-oracle"), str(ROBOT)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=120, check=True).stdout.splitlines()
    assert len(out) == N
    rows = []
    for line in out:
        v = np.array([float.fromhex(x) for x in line.split()])
        rows.append({"fk": v[0:16].reshape(4, 4), "jacobian": v[16:52].reshape(6, 6),
                     "mass": v[52:88].reshape(6, 6), "gravity": v[88:94], "id": v[94:100],
                     "fd": v[100:106], "ik": v[106:112] if len(v) > 106 else None})
    return rows


def same_bits(a, b):
    a, b = np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


@pytest.mark.parametrize("name", ["fk", "jacobian", "mass", "gravity", "id", "fd"])
def test_stacked_calls_give_the_cpp_bits(robot, states, oracle, name):
    q, qd, qdd, tau = states
    got = {"fk": lambda: robot.fk(q), "jacobian": lambda: robot.jacobian(q), "mass": lambda: robot.mass_matrix(q),
           "gravity": lambda: robot.gravity(q), "id": lambda: robot.inverse_dynamics(q, qd, qdd),
           "fd": lambda: robot.forward_dynamics(q, qd, tau)}[name]()
    want = np.stack([o[name] for o in oracle])
    assert same_bits(got, want)


def test_one_state_at_a_time_gives_the_same_bits_as_a_stack(robot, states):
    q, qd, qdd, _ = states
    stacked = robot.inverse_dynamics(q[:50], qd[:50], qdd[:50])
    for i in range(50):
        assert same_bits(robot.inverse_dynamics(q[i], qd[i], qdd[i]), stacked[i])
        assert same_bits(robot.fk(q[i]), robot.fk(q[i:i + 1])[0])
    # Any leading shape: (5, 10, 6) gives (5, 10, 4, 4), each entry its own state's.
    assert same_bits(robot.fk(q[:50].reshape(5, 10, 6)).reshape(50, 4, 4), robot.fk(q[:50]))


def test_ik_gives_the_cpp_bits_in_each_states_configuration(robot, states, oracle):
    q = states[0]
    solved = 0
    for i in range(N):
        config = robot.config_of(q[i])
        if oracle[i]["ik"] is None:
            with pytest.raises(rfms.Unreachable):
                robot.ik(oracle[i]["fk"], config)
            continue
        assert same_bits(robot.ik(oracle[i]["fk"], config), oracle[i]["ik"])
        solved += 1
    assert solved > 0.9 * N  # random states in the limits: the exceptions are at the limits' edges


def test_every_configuration_ik_all_returns_reaches_the_pose(robot, states):
    q = states[0]
    for i in range(100):
        t = robot.fk(q[i])
        found = robot.ik_all(t)
        assert any(flags == robot.config_of(q[i]) for flags, _ in found)
        for flags, x in found:
            assert np.allclose(robot.fk(x), t, atol=1e-9), flags
            assert robot.config_of(x) == flags or abs(x[4]) < 1e-6  # at theta5 = 0 flip is moot


def test_dynamics_agree_with_each_other(robot, states):
    # M qdd + bias = tau and forward dynamics inverts it: a check of the bindings' argument order.
    q, qd, qdd, _ = states
    tau = robot.inverse_dynamics(q[:20], qd[:20], qdd[:20])
    assert np.allclose(robot.forward_dynamics(q[:20], qd[:20], tau), qdd[:20], atol=1e-8)
    bias = robot.inverse_dynamics(q[:20], qd[:20], np.zeros((20, 6)))
    m = robot.mass_matrix(q[:20])
    assert np.allclose(np.einsum("nij,nj->ni", m, qdd[:20]) + bias, tau, atol=1e-9)
    # g(q) comes from the compound links, Newton-Euler at rest from the recursion: the same to rounding.
    assert np.allclose(robot.inverse_dynamics(q[:20], np.zeros((20, 6)), np.zeros((20, 6))), robot.gravity(q[:20]),
                       atol=1e-12)


def test_transforms_are_rcclls():
    t = rfms.trans(0.1, -0.2, 0.3) @ rfms.rot("z", np.pi / 2)
    assert np.allclose(t[:3, 3], [0.1, -0.2, 0.3])
    assert np.allclose(t[:3, 0], [0, 1, 0])
    assert np.allclose(rfms.rpy(0.3, 0.0, 0.0), rfms.rot("z", 0.3))
    assert np.allclose(rfms.eul(0.2, 0.0, 0.5), rfms.rot("z", 0.7))


def test_bad_arguments_are_refused_by_name(robot):
    with pytest.raises(ValueError, match="q: joint values"):
        robot.fk(np.zeros(5))
    with pytest.raises(ValueError, match="qdd has another shape"):
        robot.inverse_dynamics(np.zeros((3, 6)), np.zeros((3, 6)), np.zeros((2, 6)))
    with pytest.raises(ValueError, match="not a homogeneous transform"):
        robot.ik(np.ones((4, 4)))
    with pytest.raises(ValueError, match="not an arm configuration"):
        robot.ik(robot.fk(np.zeros(6)), "sideways")
    with pytest.raises(ValueError, match="frame is 'base' or 'tool'"):
        robot.jacobian(np.zeros(6), "world")
    with pytest.raises(rfms.ConfigError, match="cannot open"):
        rfms.Robot.load("/nonexistent/robot.textproto")
    with pytest.raises(rfms.Unreachable, match="joint 2"):
        robot.ik(rfms.trans(5.0, 0.0, 0.0), "righty,down,flip")


def test_a_stack_of_poses_is_solved_as_a_path(robot):
    # A smooth joint path in one configuration, its poses, and back: each pose solved near the one
    # before, so the path comes back whole (and bit for bit as the poses solved one at a time).
    s = np.linspace(0.0, 1.0, 200)[:, None]
    path = np.array([0.1, -0.5, 0.4, 0.3, 0.7, -0.2]) + s * np.array([0.8, 0.3, -0.5, 1.0, 0.4, 2.0])
    config = robot.config_of(path[0])
    poses = robot.fk(path)
    solved = robot.ik(poses, config, path[0])
    assert solved.shape == (200, 6)
    assert np.allclose(solved, path, atol=1e-9)
    for i in range(0, 200, 37):
        near = solved[i - 1] if i > 0 else path[0]
        assert same_bits(robot.ik(poses[i], config, near), solved[i])
    poses[120] = rfms.trans(5.0, 0.0, 0.0)
    with pytest.raises(rfms.Unreachable, match="at pose 120"):
        robot.ik(poses, config, path[0])


@pytest.mark.parametrize("arm", ["kr6_r700_sixx", "irb2400", "lrmate200id", "gp7"])
def test_an_industrial_arm_named_bare_loads_and_every_branch_reaches_the_pose(arm):
    r = rfms.Robot.load(arm)
    rng = np.random.default_rng(55)
    lo = np.array([j["q_min"] for j in r.joints])
    hi = np.array([j["q_max"] for j in r.joints])
    for q in rng.uniform(lo, hi, size=(50, 6)):
        t = r.fk(q)
        found = r.ik_all(t, q)
        assert any(np.allclose(x, q, atol=1e-7) for _, x in found) or abs(np.sin(q[4])) < 1e-6
        for flags, x in found:
            assert np.allclose(r.fk(x), t, atol=1e-10), flags
