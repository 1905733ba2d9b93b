"""Reference changepoints from ruptures, for changepoint's ruptures test.

Usage: ruptures_ref.py IN.json OUT.json

IN.json holds {"cases": [{"name": str, "x": [float], "min_size": int,
"pen": float}]}. For each case the script runs
Pelt(model="l2", min_size=min_size, jump=1).fit(x).predict(pen=pen) and
writes {"ruptures": version, "cases": [case]}, each case as it came with
"changepoints" added: ruptures' breakpoints without its final one (the
series' length). The test reads OUT.json, recorded as
testdata/ruptures_ref.json by `make ruptures-reference`; one case per
line keeps a change to it readable in a diff.
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
    lines = []
    for case in cases:
        x = np.asarray(case["x"], dtype=np.float64)
        algo = ruptures.Pelt(model="l2", min_size=case["min_size"], jump=1)
        bkps = algo.fit(x).predict(pen=case["pen"])
        if bkps[-1] != len(x):
            sys.exit(f"{case['name']}: last breakpoint {bkps[-1]}, want {len(x)}")
        case["changepoints"] = [int(b) for b in bkps[:-1]]
        lines.append(json.dumps(case))
    with open(argv[2], "w") as f:
        f.write('{"ruptures": %s, "cases": [\n' % json.dumps(version("ruptures")))
        f.write(",\n".join(lines))
        f.write("\n]}\n")


if __name__ == "__main__":
    main(sys.argv)
