"""The arm's mathematics, the project's own C++ (common/) called directly.

    robot = rfms.Robot.load("deploy/robots/puma260.textproto")
    T = robot.fk(q)                  # q (6,) -> (4, 4); q (N, 6) -> (N, 4, 4)
    q = robot.ik(T, "righty,down,flip", q_near)
    tau = robot.inverse_dynamics(q, qd, qdd)

Every function of a state takes one state, shape (6,), or a stack of them, shape (..., 6), and
gives the same bits as the C++ functions it calls.
"""

from ._rfms import Robot, eul, rot, rpy, trans

__all__ = ["Robot", "trans", "rot", "eul", "rpy"]
