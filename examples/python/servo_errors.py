#!/usr/bin/env python3
"""Watching a move: each joint's servo error sampled by the controller at --rate-hz while the arm
runs a Cartesian line, saved as a matplotlib figure (--out, a .png or .svg).

    python3 examples/python/servo_errors.py --bridge 127.0.0.1:47031 --key RUN_DIR/keys/operator.key --out errors.png
"""

import argparse
import os
import sys

import numpy as np

import rfms

SIGNALS = [f"jmail.{j}.servo_error" for j in range(1, 7)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bridge", default="127.0.0.1:47031")
    parser.add_argument("--key", default=os.environ.get("RFMS_KEY"), help="this client's key file (default: $RFMS_KEY)")
    parser.add_argument("--rate-hz", type=float, default=200.0)
    parser.add_argument("--out", default="servo_errors.png")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        print("servo_errors: needs matplotlib (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
        return 2
    try:
        with rfms.connect(args.bridge, args.key, task="servo-errors") as arm:
            arm.calibrate()
            arm.transform("top", rfms.trans(0.220, -0.12624, 0.280) @ rfms.rpy(0, np.pi / 2, 0))
            arm.transform("low", rfms.trans(0.220, -0.12624, 0.080) @ rfms.rpy(0, np.pi / 2, 0))
            arm.position("above", "righty,down,flip", ["T6"], ["top"])
            arm.position("below", "righty,down,flip", ["T6"], ["low"])
            arm.motion("reach", 2.0, 0.3, "joint")
            arm.motion("line", 2.0, 0.3, "cartesian")
            arm.wait(arm.move("above", "reach"))
            move = arm.move("below", "line")
            batches = list(arm.watch(SIGNALS, args.rate_hz, until=move, seconds=60.0))
            outcome = arm.wait(move)
        t = np.concatenate([b.time_s for b in batches])
        err = np.degrees(np.concatenate([b.values for b in batches]))
        fig, ax = plt.subplots(figsize=(8, 4))
        for j in range(6):
            ax.plot(t - t[0], err[:, j], label=f"joint {j + 1}")
        ax.set_xlabel("time since the watch began (s)")
        ax.set_ylabel("servo error (deg)")
        ax.set_title(f"move {outcome.id}: a 200 mm Cartesian line in 2 s")
        ax.legend(ncol=3)
        fig.savefig(args.out, dpi=100)
        worst = np.nanmax(np.abs(err), axis=0)
        print(f"servo_errors: {len(t)} samples at {args.rate_hz:g} Hz, {batches[-1].dropped} dropped; "
              f"max |error| per joint (deg): {' '.join(f'{w:.4f}' for w in worst)}; figure {args.out}")
        return 0
    except rfms.RfmsError as e:
        print(f"servo_errors: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
