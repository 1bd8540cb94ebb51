#!/usr/bin/python3
"""Active learning against plain Latin-hypercube sampling on examples/active_learning's
resonator, with the same surrogate (the example's ensemble), the same held-out set and the same
training per point count. For each seed: the active-learning loop (an LHS start, then K points
per round where the ensemble disagrees most) and LHS samples of growing size n; the held-out
RMSE of each; then the samples each needed to reach the target error, and their ratio (the goal
is <= 0.6). Writes the error-vs-samples curves as a PNG when matplotlib is there.
A measurement, not a test: exits 0 whatever the figures.

usage: /usr/bin/python3 tests/bench/active_learning_bench.py [--seeds 3] [--target 0.2]
       [--png examples/active_learning/learning_curves.png] [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(SRC, "examples", "active_learning")
sys.path.insert(0, EXAMPLE)
import rounds  # noqa: E402
import space  # noqa: E402


class Simulator:
    """The example's resonator in its batch mode (--table): one process per batch of points."""

    def __init__(self, work):
        self.work = work
        self.exe = os.path.join(work, "resonator")
        subprocess.run(["c++", "-O2", "-std=c++17", "-o", self.exe,
                        os.path.join(EXAMPLE, "resonator.cc")], check=True)

    def __call__(self, u):
        omega, zeta = space.from_unit(u)
        points, out = os.path.join(self.work, "points.csv"), os.path.join(self.work, "out.csv")
        np.savetxt(points, np.column_stack([omega, zeta]), delimiter=",", fmt="%.17g")
        subprocess.run([self.exe, "--table", points, "--out", out], check=True)
        return np.genfromtxt(out, delimiter=",", names=True)["amplitude"]


def active_curve(sim, hx, hy, seed, n_init, k, max_samples):
    x = space.lhs(n_init, seed)
    y = sim(x)
    curve = []
    while True:
        ens, err = rounds.fit_and_score(x, y, hx, hy, seed * 1000 + len(curve) + 1)
        curve.append((len(x), err))
        print(f"  seed {seed} active {len(x):4d} samples: RMSE {err:.4f}", flush=True)
        if len(x) + k > max_samples:
            return curve
        new = rounds.next_points(ens, x, k, seed * 1000 + len(curve))
        x, y = np.vstack([x, new]), np.concatenate([y, sim(new)])


def lhs_curve(sim, hx, hy, seed, sizes):
    curve = []
    for n in sizes:
        x = space.lhs(n, seed * 7919 + n)
        _, err = rounds.fit_and_score(x, sim(x), hx, hy, seed * 1000 + 1)
        curve.append((n, err))
        print(f"  seed {seed} lhs    {n:4d} samples: RMSE {err:.4f}", flush=True)
    return curve


def samples_to(curve, target):
    """The first sample count whose error is <= target, or None."""
    return next((n for n, e in curve if e <= target), None)


def plot(path, runs, target, n_init, k):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib (apt-get install python3-matplotlib): no PNG written")
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, color in (("lhs", "tab:blue"), ("active", "tab:red")):
        curves = [r[name] for r in runs]
        for c in curves:
            ax.plot(*zip(*c), color=color, alpha=0.25, lw=1)
        ns = [n for n, _ in curves[0]]
        med = np.median([[e for _, e in c] for c in curves], axis=0)
        label = ("Latin hypercube, n samples" if name == "lhs" else
                 f"active learning ({n_init} LHS, then {k} per round)")
        ax.plot(ns, med, color=color, lw=2.5, marker="o", ms=3, label=label + " (median)")
    ax.axhline(target, color="k", ls="--", lw=1, label=f"target RMSE {target}")
    ax.set_yscale("log")
    ax.set_xlabel("simulations")
    ax.set_ylabel("held-out RMSE of the ensemble mean (amplitude)")
    ax.set_title(f"resonator surrogate: error vs samples ({len(runs)} seeds)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--target", type=float, default=0.12)
    p.add_argument("--init", type=int, default=20)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--max-samples", type=int, default=160)
    p.add_argument("--lhs-sizes", default="40,60,80,100,120,160,200,240,300,400")
    p.add_argument("--heldout", type=int, default=1000)
    p.add_argument("--png", default="")
    p.add_argument("--json", default="")
    a = p.parse_args()
    sizes = [int(s) for s in a.lhs_sizes.split(",")]
    t0 = time.time()
    with tempfile.TemporaryDirectory() as work:
        sim = Simulator(work)
        hx = space.lhs(a.heldout, 1001)
        hy = sim(hx)
        print(f"active_learning_bench: resonator, held-out {a.heldout} LHS points (std "
              f"{hy.std():.3f}, max {hy.max():.2f}), target RMSE {a.target}, {a.seeds} seeds")
        runs = []
        for seed in range(1, a.seeds + 1):
            runs.append({"seed": seed,
                         "active": active_curve(sim, hx, hy, seed, a.init, a.k, a.max_samples),
                         "lhs": lhs_curve(sim, hx, hy, seed, sizes)})
    print(f"\nsamples to reach held-out RMSE <= {a.target} (None: not within the sizes tried)")
    print("seed  active  lhs   ratio")
    ratios = []
    for r in runs:
        na, nl = samples_to(r["active"], a.target), samples_to(r["lhs"], a.target)
        ratio = na / nl if na and nl else None
        if ratio is not None:
            ratios.append(ratio)
        print(f"{r['seed']:4d}  {str(na):>6}  {str(nl):>4}  {ratio if ratio is None else round(ratio, 2)}")
    med_a = [samples_to(list(zip([n for n, _ in runs[0][m]],
                                 np.median([[e for _, e in r[m]] for r in runs], axis=0))), a.target)
             for m in ("active", "lhs")]
    print(f"median curves: active {med_a[0]}, lhs {med_a[1]}, ratio "
          f"{round(med_a[0] / med_a[1], 2) if all(med_a) else None}")
    if ratios:
        print(f"ratio per seed: mean {np.mean(ratios):.2f}, median {np.median(ratios):.2f} (goal <= 0.6)")
    print(f"total {time.time() - t0:.0f} s")
    if a.png:
        plot(a.png, runs, a.target, a.init, a.k)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"target": a.target, "runs": runs}, f)


if __name__ == "__main__":
    main()
