#!/usr/bin/python3
"""Integration error of `merlin sample`'s randomised designs against scipy.stats.qmc's.

For each method (sobol, halton, lhs) and each of --seeds seeds, merlin writes N rows of d
columns in [0, 1) (`merlin sample -m METHOD -n N -d D -s SEED -o x.npy`) and scipy draws the
same (Sobol(scramble=True), Halton(scramble=True), LatinHypercube, each seeded). Both estimate
the integral of f(x) = prod_j (1 + (x_j - 0.5)) over [0, 1)^d, which is exactly 1. The script
prints the RMSE and the bias (mean error) of the estimates over the seeds, side by side with
the ratio merlin / scipy; first at d=5, N=4096, then Sobol at d=40. The goal is a ratio within
about 1.5 for Sobol and Halton. With --baseline OLD_MERLIN it adds that binary's figures.

A measurement, not a test, and not timed: exits 0 whatever the figures, 2 when it cannot
measure (merlin fails), 0 with a message when scipy is missing.

usage: /usr/bin/python3 tests/bench/qmc_bench.py [path/to/merlin] [--seeds 30] [--rows 4096]
       [--dims 5] [--high-dims 40] [--baseline path/to/other/merlin]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    from scipy.stats import qmc
except ImportError:
    print("qmc_bench: scipy is not installed (Debian: python3-scipy); nothing measured")
    sys.exit(0)


def f(x):
    return np.prod(1.0 + (x - 0.5), axis=1)


EXACT = 1.0


def merlin_rows(merlin, method, n, d, seed, tmp, required=True):
    out = os.path.join(tmp, "x.npy")
    r = subprocess.run([merlin, "sample", "-m", method, "-n", str(n), "-d", str(d), "-s",
                        str(seed), "-o", out], capture_output=True, text=True)
    if r.returncode != 0 and not required:
        return None
    if r.returncode != 0:
        print(f"qmc_bench: merlin sample -m {method} failed ({r.returncode}): {r.stderr}")
        sys.exit(2)
    return np.load(out)


def scipy_rows(method, n, d, seed):
    if method == "sobol":
        return qmc.Sobol(d, scramble=True, seed=seed).random(n)
    if method == "halton":
        return qmc.Halton(d, scramble=True, seed=seed).random(n)
    return qmc.LatinHypercube(d, seed=seed).random(n)


def stats(estimates):
    e = np.asarray(estimates) - EXACT
    return float(np.sqrt(np.mean(e * e))), float(np.mean(e))


def main():
    ap = argparse.ArgumentParser()
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("merlin", nargs="?", default=os.path.join(src, "build", "merlin"))
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--dims", type=int, default=5)
    ap.add_argument("--high-dims", type=int, default=40)
    ap.add_argument("--baseline", help="another merlin binary to compare (e.g. an older build)")
    a = ap.parse_args()
    cases = [(m, a.dims) for m in ("sobol", "halton", "lhs")] + [("sobol", a.high_dims)]
    print(f"f(x) = prod_j (1 + (x_j - 0.5)), exact integral 1; N={a.rows}, {a.seeds} seeds")
    head = f"{'method':<8}{'d':>4}{'merlin RMSE':>13}{'scipy RMSE':>12}{'ratio':>7}" \
           f"{'merlin bias':>13}{'scipy bias':>12}"
    if a.baseline:
        head += f"{'old RMSE':>11}{'old bias':>11}"
    print(head)
    with tempfile.TemporaryDirectory() as tmp:
        for method, d in cases:
            mine = [f(merlin_rows(a.merlin, method, a.rows, d, s, tmp)).mean() for s in range(a.seeds)]
            theirs = [f(scipy_rows(method, a.rows, d, s)).mean() for s in range(a.seeds)]
            (rm, bm), (rs, bs) = stats(mine), stats(theirs)
            line = f"{method:<8}{d:>4}{rm:>13.3e}{rs:>12.3e}{rm / rs:>7.2f}{bm:>13.2e}{bs:>12.2e}"
            if a.baseline:
                old = [merlin_rows(a.baseline, method, a.rows, d, s, tmp, required=False)
                       for s in range(a.seeds)]
                if any(x is None for x in old):
                    line += f"{'refused':>11}{'':>11}"
                else:
                    ro, bo = stats([f(x).mean() for x in old])
                    line += f"{ro:>11.3e}{bo:>11.2e}"
            print(line, flush=True)
            print(f"RESULT method={method} d={d} merlin_rmse={rm:.3e} scipy_rmse={rs:.3e} "
                  f"ratio={rm / rs:.2f} merlin_bias={bm:.2e} scipy_bias={bs:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
