#!/usr/bin/env python3
"""merlin sample -m maximin against plain Latin hypercubes (merlin's and scipy's) and scipy's
optimised one (optimization="random-cd", which lowers the centred discrepancy rather than
raising the smallest distance): the smallest distance between two rows, the mean over 5 seeds,
and the time per design. Not a timed test; prints a table.

    /usr/bin/python3 tests/bench/maximin_bench.py build/merlin
Needs python3-numpy and python3-scipy. Writes one small .npy file in a temporary directory.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.spatial.distance import pdist
from scipy.stats import qmc

merlin = sys.argv[1] if len(sys.argv) > 1 else "build/merlin"
tmp = tempfile.mkdtemp(prefix="maximin-bench.")
out = os.path.join(tmp, "s.npy")


def merlin_design(method, n, d, seed):
    subprocess.run([merlin, "sample", "-m", method, "-n", str(n), "-d", str(d), "-s", str(seed),
                    "-o", out], check=True, capture_output=True)
    return np.load(out)


print("| rows | columns | design | smallest distance | vs merlin lhs | seconds per design |")
print("|---|---|---|---|---|---|")
for n, d in ((100, 3), (1000, 5)):
    designs = (
        ("merlin lhs", lambda s: merlin_design("lhs", n, d, s)),
        ("merlin maximin", lambda s: merlin_design("maximin", n, d, s)),
        ("scipy LatinHypercube", lambda s: qmc.LatinHypercube(d, seed=s).random(n)),
        ("scipy LatinHypercube random-cd",
         lambda s: qmc.LatinHypercube(d, seed=s, optimization="random-cd").random(n)),
    )
    base = None
    for name, make in designs:
        start = time.time()
        dist = np.mean([pdist(make(s)).min() for s in range(1, 6)])
        each = (time.time() - start) / 5
        base = base or dist
        print(f"| {n} | {d} | {name} | {dist:.4f} | {dist / base:.2f} | {each:.2f} |")

shutil.rmtree(tmp)
