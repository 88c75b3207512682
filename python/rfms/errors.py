"""The exceptions the rfms package raises.

Every one is an RfmsError; each is also the built-in exception it is a kind of, so that code which
catches ValueError or ConnectionError catches it too.
"""


class RfmsError(Exception):
    """Anything the controller or the link reported as going wrong."""


class RequestRefused(RfmsError, ValueError):
    """The supervisor refused a request, and changed nothing.

    ``reason`` is the supervisor's own words (the message adds which request it was).
    """

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


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
