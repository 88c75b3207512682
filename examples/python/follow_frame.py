#!/usr/bin/env python3
"""Following a moving frame: an object circles in front of the arm and its transform is sent at
--rate-hz (200 by default). One tracking move takes the tool to a position defined on the object
and keeps it there; at the end the script prints the rate it reached and how far T6 trailed the
object, from the controller's own samples of T6.

    python3 examples/python/follow_frame.py --bridge 127.0.0.1:47031 --key RUN_DIR/keys/operator.key
"""

import argparse
import math
import os
import sys
import time

import numpy as np

import rfms

CENTRE = np.array([0.220, -0.12624, 0.150])  # m: in front of the PUMA 260, the hand pointing forward
HAND = rfms.rpy(0.0, math.pi / 2, 0.0)


def object_at(t: float, radius: float, circle_s: float) -> np.ndarray:
    a = 2.0 * math.pi * t / circle_s
    return rfms.trans(*(CENTRE + radius * np.array([0.0, math.cos(a), math.sin(a)]))) @ HAND


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bridge", default="127.0.0.1:47031")
    parser.add_argument("--key", default=os.environ.get("RFMS_KEY"), help="this client's key file (default: $RFMS_KEY)")
    parser.add_argument("--rate-hz", type=float, default=200.0, help="transform updates per second")
    parser.add_argument("--seconds", type=float, default=6.0, help="how long to follow")
    parser.add_argument("--radius-mm", type=float, default=20.0)
    parser.add_argument("--circle-s", type=float, default=4.0, help="time for one circle")
    args = parser.parse_args()
    radius = args.radius_mm * 1e-3
    try:
        with rfms.connect(args.bridge, args.key, task="follow") as arm:
            arm.calibrate()
            arm.transform("obj", object_at(0.0, radius, args.circle_s))
            arm.position("on_obj", "righty,down,flip", ["T6"], ["obj"])
            arm.motion("follow", 2.0, 0.3, "joint", track=True)
            move = arm.move("on_obj", "follow")
            time.sleep(2.5)  # the move reaches the object, then tracks it
            sent, start = 0, time.monotonic()
            next_t = start
            while (now := time.monotonic()) - start < args.seconds:
                arm.transform("obj", object_at(now - start, radius, args.circle_s))
                sent += 1
                next_t += 1.0 / args.rate_hz
                time.sleep(max(0.0, next_t - time.monotonic()))
            rate = sent / (time.monotonic() - start)
            # Where T6 is now against where the object was last sent, then the move's end.
            last = object_at(time.monotonic() - start, radius, args.circle_s)
            trail = np.linalg.norm(arm.status().t6[:3, 3] - last[:3, 3])
            arm.stop()
            try:
                arm.wait(move, 30.0)
            except rfms.MoveFailed:
                pass  # a tracking move ends by stop(): that is how it is meant to end
        print(f"follow_frame: {sent} updates at {rate:.1f} Hz, T6 {trail * 1000:.2f} mm from the object at the end")
        return 0
    except rfms.RfmsError as e:
        print(f"follow_frame: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
