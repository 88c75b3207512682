"""rfms: the RFMS controller from Python.

The client (a session with rfms-bridge), the arm's mathematics and run logs, all over the
project's C++ code:

    import rfms
    with rfms.connect("127.0.0.1:47031", key="runs/.../keys/operator.key") as arm:
        arm.calibrate()
        arm.transform("t2", rfms.trans(0.2032, -0.12623, 0.2032))
        arm.position("home", "righty,down,flip", ["T6"], ["t2"])
        arm.motion("mjnt", 2.0, 0.2, "joint")
        arm.wait(arm.move("home", "mjnt"))

    robot = rfms.Robot.load("deploy/robots/puma260.textproto")
    robot.fk(q), robot.jacobian(q), robot.ik(T, "righty,down,flip"), robot.mass_matrix(q), ...

    log = rfms.open_log("runs/.../run.mcap")
    log.signals(["jmail.1.angle", "jmail.1.servo_setpoint"])

Units are SI: metres, radians, seconds, newtons.
"""

from .errors import ConfigError, LinkError, MoveFailed, Refusal, RequestRefused, RfmsError, Unreachable
from .maths import Robot, eul, rot, rpy, trans
from .client import ArmStatus, Client, Force, ForceFigures, MoveOutcome, Samples, connect
from .run_log import RunLog, open_log

__all__ = [
    "connect", "Client", "Force", "ArmStatus", "MoveOutcome", "ForceFigures", "Samples",
    "Robot", "trans", "rot", "eul", "rpy",
    "open_log", "RunLog",
    "RfmsError", "RequestRefused", "Refusal", "MoveFailed", "LinkError", "ConfigError", "Unreachable",
]
