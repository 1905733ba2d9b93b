"""Reference changepoints from ruptures, for changepoint's ruptures test.

Usage: ruptures_ref.py IN.json OUT.json

IN.json holds {"cases": [{"name": str, "x": [float], "min_size": int,
"pen": float}]}. For each case the script runs
Pelt(model="l2", min_size=min_size, jump=1).fit(x).predict(pen=pen) and
writes {"ruptures": version, "cases": {name: [changepoints]}}, the
changepoints without ruptures' final breakpoint (the series' length).
"""

import json
import sys
from importlib.metadata import version

import numpy as np
import ruptures


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: ruptures_ref.py IN.json OUT.json")
    with open(argv[1]) as f:
        cases = json.load(f)["cases"]
    out = {}
    for case in cases:
        x = np.asarray(case["x"], dtype=np.float64)
        algo = ruptures.Pelt(model="l2", min_size=case["min_size"], jump=1)
        bkps = algo.fit(x).predict(pen=case["pen"])
        if bkps[-1] != len(x):
            sys.exit(f"{case['name']}: last breakpoint {bkps[-1]}, want {len(x)}")
        out[case["name"]] = [int(b) for b in bkps[:-1]]
    with open(argv[2], "w") as f:
        json.dump({"ruptures": version("ruptures"), "cases": out}, f)


if __name__ == "__main__":
    main(sys.argv)
