"""Every number the package takes is finite and in range, or refused naming it; and what a user's
file holds cannot turn a refusal into another error. None of these needs a cluster: each is refused
before anything is sent or computed."""

import math

import numpy as np
import pytest

import rfms
from conftest import ROBOT

BAD = [math.nan, math.inf, -math.inf]


@pytest.fixture(scope="module")
def robot():
    return rfms.Robot.load(str(ROBOT))


@pytest.mark.parametrize("bad", BAD)
def test_joint_values_that_are_not_finite_are_refused(robot, bad):
    q = np.zeros(6)
    q[2] = bad
    pose = robot.fk(np.zeros(6))
    with pytest.raises(ValueError, match="config_of: q: a value that is not a finite number"):
        robot.config_of(q)
    with pytest.raises(ValueError, match="ik: q_near: a value that is not a finite number"):
        robot.ik(pose, "righty,down,flip", q)
    with pytest.raises(ValueError, match="ik_all: q_near"):
        robot.ik_all(pose, q)
    with pytest.raises(ValueError, match="q: a value that is not a finite number"):
        robot.fk(np.stack([np.zeros(6), q]))  # in a stack too, at any row
    with pytest.raises(ValueError, match="qd: a value"):
        robot.inverse_dynamics(np.zeros(6), q, np.zeros(6))
    with pytest.raises(ValueError, match="gravity"):
        robot.inverse_dynamics(np.zeros(6), np.zeros(6), np.zeros(6), bad)


@pytest.mark.parametrize("bad", BAD)
def test_transform_arguments_that_are_not_finite_are_refused(bad):
    with pytest.raises(ValueError, match="trans: y"):
        rfms.trans(0.0, bad, 0.0)
    with pytest.raises(ValueError, match="rot: angle"):
        rfms.rot("z", bad)
    with pytest.raises(ValueError, match="rpy: psi"):
        rfms.rpy(0.0, 0.0, bad)
    with pytest.raises(ValueError, match="eul: phi"):
        rfms.eul(bad, 0.0, 0.0)


@pytest.mark.parametrize("timeout", [math.nan, math.inf, 1e300, 0.0, -1.0])
def test_a_link_timeout_out_of_range_is_refused_before_any_send(timeout):
    with pytest.raises(ValueError, match="link_timeout_s"):
        rfms.Client("127.0.0.1:9", link_timeout_s=timeout)


def test_tries_out_of_range_are_refused():
    with pytest.raises(ValueError, match="tries"):
        rfms.Client("127.0.0.1:9", tries=0)


def test_force_numbers_that_are_not_finite_are_refused():
    with pytest.raises(ValueError, match="setpoint"):
        rfms.Force().press("z", math.nan)
    with pytest.raises(ValueError, match="stiffness"):
        rfms.Force().spring("z", math.inf)
    with pytest.raises(ValueError, match="kp"):
        rfms.Force().law("p", math.nan)


def test_a_robot_file_that_never_ends_is_refused_without_reading_it_all():
    # /dev/zero has no size to check first: the loader stops at its limit (64 MiB), not at 2 GiB.
    with pytest.raises(rfms.ConfigError, match="goes on past"):
        rfms.Robot.load("/dev/zero")


def test_a_key_file_of_bytes_that_are_not_utf8_is_a_config_error(tmp_path):
    key = tmp_path / "bad.key"
    key.write_bytes(b"\xff\xfe\x80: 00\n")
    with pytest.raises(rfms.ConfigError, match="unknown entry"):
        rfms.Client("127.0.0.1:9", key=str(key))
