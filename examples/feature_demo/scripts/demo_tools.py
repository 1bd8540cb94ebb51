#!/usr/bin/env python3
"""The data steps of the feature demo, in plain Python (standard library only):

  make-samples  uniform random samples in [0, 1)^2, as a headerless CSV
  collect       many simulation records (JSON) into one list
  translate     that list into a CSV table X0,X1,X2,y
  learn         a quadratic least-squares surrogate y(X0, X1), saved as JSON
  make-grid     an n x n grid of new points in [0, 1]^2
  predict       the surrogate at those points
  check         predictions against fresh runs of the simulator
"""
import argparse
import csv
import importlib.util
import json
import random
import sys

TERMS = ["1", "X0", "X1", "X0^2", "X1^2", "X0*X1"]


def features(x0, x1):
    return [1.0, x0, x1, x0 * x0, x1 * x1, x0 * x1]


def make_samples(a):
    rng = random.Random(a.seed)
    with open(a.outfile, "w", newline="") as f:
        w = csv.writer(f)
        for _ in range(a.n):
            w.writerow([f"{rng.random():.6f}", f"{rng.random():.6f}"])
    print(f"{a.n} samples -> {a.outfile}")


def collect(a):
    with open(a.infiles) as f:
        paths = f.read().split()
    records = []
    for p in paths:
        with open(p) as r:
            records.append(json.load(r))
    with open(a.outfile, "w") as f:
        json.dump(records, f)
    print(f"collected {len(records)} records -> {a.outfile}")


def translate(a):
    with open(a.infile) as f:
        records = json.load(f)
    with open(a.outfile, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["X0", "X1", "X2", "y"])
        for r in records:
            i = r["inputs"]
            w.writerow([i["X0"], i["X1"], i["X2"], r["outputs"]["y"]])
    print(f"{len(records)} rows -> {a.outfile}")


def solve(m, v):
    """Gaussian elimination with partial pivoting: m x = v."""
    n = len(v)
    m = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-12:
            sys.exit("learn: the samples do not determine the surrogate (too few or degenerate)")
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def learn(a):
    with open(a.infile) as f:
        rows = list(csv.DictReader(f))
    xs = [features(float(r["X0"]), float(r["X1"])) for r in rows]
    ys = [float(r["y"]) for r in rows]
    n = len(TERMS)
    normal = [[sum(x[i] * x[j] for x in xs) for j in range(n)] for i in range(n)]
    rhs = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(n)]
    coef = solve(normal, rhs)
    rms = (sum((sum(c * f for c, f in zip(coef, x)) - y) ** 2 for x, y in zip(xs, ys)) / len(ys)) ** 0.5
    with open(a.outfile, "w") as f:
        json.dump({"terms": TERMS, "coefficients": coef, "train_rms": rms, "samples": len(ys)}, f)
    print(f"fitted {n} terms to {len(ys)} samples, training RMS error {rms:.3g} -> {a.outfile}")


def make_grid(a):
    k = max(a.n, 2)
    with open(a.outfile, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["X0", "X1"])
        for i in range(k):
            for j in range(k):
                w.writerow([i / (k - 1), j / (k - 1)])
    print(f"{k * k} grid points -> {a.outfile}")


def predict(a):
    with open(a.model) as f:
        coef = json.load(f)["coefficients"]
    with open(a.infile) as f:
        points = [(float(r["X0"]), float(r["X1"])) for r in csv.DictReader(f)]
    with open(a.outfile, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["X0", "X1", "y_predicted"])
        for x0, x1 in points:
            w.writerow([x0, x1, sum(c * v for c, v in zip(coef, features(x0, x1)))])
    print(f"{len(points)} predictions -> {a.outfile}")


def check(a):
    spec = importlib.util.spec_from_file_location("simulate", a.simulator)
    sim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sim)
    worst = 0.0
    with open(a.infile) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        x0, x1 = float(r["X0"]), float(r["X1"])
        worst = max(worst, abs(float(r["y_predicted"]) - sim.response(x0, x1, a.x2)))
    ok = rows and worst <= a.tolerance
    print(f"{len(rows)} predictions, largest error {worst:.3g} (tolerance {a.tolerance:g}): "
          + ("ok" if ok else "TOO LARGE"))
    sys.exit(0 if ok else 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("make-samples")
    p.add_argument("-n", type=int, required=True)
    p.add_argument("-seed", type=int, default=0)
    p.add_argument("-outfile", required=True)
    p.set_defaults(run=make_samples)
    p = sub.add_parser("collect")
    p.add_argument("-infiles", required=True, help="a file listing the records to collect")
    p.add_argument("-outfile", required=True)
    p.set_defaults(run=collect)
    for name, run in (("translate", translate), ("learn", learn)):
        p = sub.add_parser(name)
        p.add_argument("-infile", required=True)
        p.add_argument("-outfile", required=True)
        p.set_defaults(run=run)
    p = sub.add_parser("make-grid")
    p.add_argument("-n", type=int, required=True)
    p.add_argument("-outfile", required=True)
    p.set_defaults(run=make_grid)
    p = sub.add_parser("predict")
    p.add_argument("-infile", required=True)
    p.add_argument("-model", required=True)
    p.add_argument("-outfile", required=True)
    p.set_defaults(run=predict)
    p = sub.add_parser("check")
    p.add_argument("-infile", required=True)
    p.add_argument("-x2", type=float, required=True)
    p.add_argument("-simulator", required=True)
    p.add_argument("-tolerance", type=float, default=1e-6)
    p.set_defaults(run=check)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
