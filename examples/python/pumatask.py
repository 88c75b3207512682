#!/usr/bin/env python3
"""The RFMS manual's example task, pumatask() (A.5 section 2.2), in Python: define the home
transform and position and four motion records, comply along z on the spot for 20 s, and
return home by a joint motion.

    python3 examples/python/pumatask.py --bridge 127.0.0.1:47031 --key RUN_DIR/keys/operator.key
"""

import argparse
import os
import sys

import rfms


def pumatask(arm: rfms.Client, comply_s: float) -> rfms.MoveOutcome:
    arm.calibrate()
    arm.transform("t2", rfms.trans(0.2032, -0.12623, 0.2032))  # home
    arm.position("home", "righty,down,flip", ["T6"], ["t2"])
    arm.motion("mjnt", 2.0, 0.2, "joint")
    arm.motion("mcart", 4.0, 0.3, "cartesian")
    arm.motion("mcartcz", comply_s, 0.5, "cartesian", compliance="z")
    arm.motion("mcartcx", 15.0, 0.5, "cartesian", compliance="x")
    arm.move("home", "mcartcz")
    return arm.wait(arm.move("home", "mjnt"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bridge", default="127.0.0.1:47031", help="the bridge, host:port")
    parser.add_argument("--key", default=os.environ.get("RFMS_KEY"), help="this client's key file (default: $RFMS_KEY)")
    parser.add_argument("--comply-s", type=float, default=20.0, help="how long to comply along z (the manual: 20)")
    args = parser.parse_args()
    try:
        with rfms.connect(args.bridge, args.key, task="pumatask") as arm:
            outcome = pumatask(arm, args.comply_s)
            status = arm.status()
        x, y, z = status.t6[:3, 3] * 1000.0
        print(f"pumatask done: move {outcome.id} completed, T6 at ({x:.2f}, {y:.2f}, {z:.2f}) mm")
        return 0
    except rfms.RfmsError as e:
        print(f"pumatask: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
