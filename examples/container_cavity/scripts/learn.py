#!/usr/bin/env python3
"""Fits a surrogate of the cavity's enstrophy (the container_cavity example).

usage: learn.py DATA.csv OUT.json
Least squares on features of the lid speed U and the viscosity nu (1, U, U^2, U^2 log nu,
log nu), then the leave-one-out error: each run predicted by a fit to the others. Writes the
coefficients, R^2 on the data and the leave-one-out R^2 and largest relative error. Standard
library only (the normal equations, solved by Gaussian elimination with pivoting).
"""
import csv
import json
import math
import sys

FEATURES = ["1", "U", "U^2", "U^2 log(nu)", "log(nu)"]


def features(U, nu):
    return [1.0, U, U * U, U * U * math.log(nu), math.log(nu)]


def fit(X, y):
    """The least-squares coefficients of X c = y."""
    k = len(X[0])
    A = [[sum(r[i] * r[j] for r in X) for j in range(k)] + [sum(r[i] * t for r, t in zip(X, y))]
         for i in range(k)]
    for col in range(k):
        p = max(range(col, k), key=lambda r: abs(A[r][col]))
        if abs(A[p][col]) < 1e-300:
            sys.exit("learn: the runs do not determine the fit (too few distinct samples)")
        A[col], A[p] = A[p], A[col]
        for r in range(k):
            if r != col:
                f = A[r][col] / A[col][col]
                A[r] = [a - f * b for a, b in zip(A[r], A[col])]
    return [A[i][k] / A[i][i] for i in range(k)]


def predict(c, x):
    return sum(a * b for a, b in zip(c, x))


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: learn.py DATA.csv OUT.json")
    try:
        with open(argv[1]) as f:
            rows = [(float(r["lid_speed"]), float(r["nu"]), float(r["enstrophy"]))
                    for r in csv.DictReader(f)]
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"learn: {argv[1]}: {e}")
    if len(rows) < 7:
        sys.exit(f"learn: {argv[1]} has {len(rows)} runs; at least 7 are needed for 5 "
                 "coefficients and their leave-one-out error")
    X = [features(U, nu) for U, nu, _ in rows]
    y = [t for _, _, t in rows]
    coef = fit(X, y)
    mean = sum(y) / len(y)
    ss = sum((t - mean) ** 2 for t in y)
    r2 = 1 - sum((t - predict(coef, x)) ** 2 for x, t in zip(X, y)) / ss
    loo = [predict(fit(X[:k] + X[k + 1:], y[:k] + y[k + 1:]), X[k]) for k in range(len(y))]
    loo_r2 = 1 - sum((t - p) ** 2 for t, p in zip(y, loo)) / ss
    worst = max(abs(p - t) / abs(t) for t, p in zip(y, loo))
    out = {"features": FEATURES, "coefficients": coef, "runs": len(y), "r2": r2,
           "loo_r2": loo_r2, "loo_max_relative_error": worst}
    with open(argv[2], "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"learn: {len(y)} runs, R^2 {r2:.4f}, leave-one-out R^2 {loo_r2:.4f}, "
          f"largest leave-one-out error {100 * worst:.1f}%")


if __name__ == "__main__":
    main(sys.argv)
