"""The exceptions the rfms package raises.

Every one is an RfmsError; each is also the built-in exception it is a kind of, so that code which
catches ValueError or ConnectionError catches it too.
"""

import enum


class Refusal(str, enum.Enum):
    """Why the supervisor refused a request: ``RequestRefused.code``, for a program to branch on.

    Each member equals its name as the C++ library and rfms-client spell it (``"unreachable"``).
    """

    TRY_AGAIN = "try_again"  # nothing wrong with it: the supervisor cannot take it now
    INVALID = "invalid"  # a value malformed or out of range
    UNKNOWN_NAME = "unknown_name"  # a transform, position or motion not defined
    NAME_IN_USE = "name_in_use"  # defined otherwise already, or used by a move or a position
    TABLE_FULL = "table_full"  # the names the world model or a key may hold
    WRONG_STATE = "wrong_state"  # not in the arm's present state
    NOT_CALIBRATED = "not_calibrated"
    UNREACHABLE = "unreachable"  # outside the workspace or the joint limits, or at a singularity
    UNSTABLE = "unstable"  # a force law or compensator the stability check says will not hold
    CANNOT_ACT = "cannot_act"  # a setpoint no contact of the scene can give
    SCENE_LACKS = "scene_lacks"  # a sensor, a wrist or friction the scene does not have
    NOT_PERMITTED = "not_permitted"  # not for this client's key
    ARM_TAKEN = "arm_taken"  # another client's task holds the arm
    NO_TASK = "no_task"  # needs a task of this client's own
    OUT_OF_ORDER = "out_of_order"  # a request number older than the last handled, or skipping ahead
    WRONG_CLIENT = "wrong_client"  # for another kind of client
    LOG_STOPPED = "log_stopped"  # the run requires a log, and the log stopped writing
    UNSPECIFIED = "unspecified"  # a code this package does not know (a newer supervisor's)


class RfmsError(Exception):
    """Anything the controller or the link reported as going wrong."""


class RequestRefused(RfmsError, ValueError):
    """The supervisor refused a request, and changed nothing.

    ``reason`` is the supervisor's own words (the message adds which request it was); ``code``
    the kind of refusal, a :class:`Refusal`.
    """

    def __init__(self, message: str, reason: str = "", code: str = "unspecified") -> None:
        super().__init__(message)
        self.reason = reason
        try:
            self.code = Refusal(code)
        except ValueError:
            self.code = Refusal.UNSPECIFIED


class MoveFailed(RfmsError):
    """A move was aborted (a stop, an emergency: named in the message), ran its course without
    doing what it was asked (a guard never met, a force not held), or did not end in time."""


class LinkError(RfmsError, ConnectionError):
    """The bridge did not answer (or refused this client's key). The request may or may not have
    been applied; the next one goes out in a new link session."""


class ConfigError(RfmsError, ValueError):
    """A file (a robot model, a key, a run log) is missing or wrong; the message names where."""


class Unreachable(RfmsError, ValueError):
    """The inverse kinematics has no solution for the pose in that configuration."""
