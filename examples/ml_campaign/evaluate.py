#!/usr/bin/python3
"""Scores the trained surrogate. Held out: every held-out simulation (inputs.csv + result.json
under --heldout) is predicted with `merlin-train predict`; the RMSE of the range is compared
with the mean predictor's (the training mean, model.json's target_mean: what an untrained model
predicts). Fresh: --fresh new Latin-hypercube points (`merlin sample`, --fresh-seed) are
predicted first, then simulated; every one's error must be within --fresh-fraction x the mean
predictor's held-out RMSE. Writes --out (metrics.json); exits 1 if the fresh check fails.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

import numpy as np

p = argparse.ArgumentParser()
for flag in ["--model", "--heldout", "--simulator", "--out"]:
    p.add_argument(flag, required=True)
p.add_argument("--fresh", type=int, default=5)
p.add_argument("--fresh-seed", type=int, default=2002)
p.add_argument("--fresh-fraction", type=float, default=0.1)
a = p.parse_args()


def predict(x, name):
    np.savetxt(name + ".csv", x, delimiter=",", fmt="%.17g")
    subprocess.run(["merlin-train", "predict", "--model", a.model, "--inputs", name + ".csv",
                    "--out", name + "_pred.csv"], check=True)
    return np.loadtxt(name + "_pred.csv", delimiter=",", skiprows=1, ndmin=1)


# Held out.
x, y = [], []
for f in sorted(glob.glob(os.path.join(a.heldout, "**", "inputs.csv"), recursive=True)):
    x.append(np.loadtxt(f, delimiter=","))
    y.append(json.load(open(os.path.join(os.path.dirname(f), "result.json")))["range"])
x, y = np.array(x), np.array(y)
card = json.load(open(os.path.join(a.model, "model.json")))
mean = card["target_mean"][0]
pred = predict(x, "heldout")
rmse = float(np.sqrt(np.mean((pred - y) ** 2)))
baseline = float(np.sqrt(np.mean((mean - y) ** 2)))

# Fresh points: predicted, then simulated.
subprocess.run(["merlin", "sample", "-n", str(a.fresh), "-m", "lhs", "-s", str(a.fresh_seed),
                "-c", "V0=10:60", "-c", "ANGLE=15:75", "-c", "DRAG=1e-3:1e-1:log",
                "-o", "fresh.csv"], check=True, stdout=subprocess.DEVNULL)
fx = np.loadtxt("fresh.csv", delimiter=",", ndmin=2)
fpred = predict(fx, "fresh")
fresh = []
for i, (v0, angle, drag) in enumerate(fx):
    out = f"fresh_{i}.json"
    subprocess.run([a.simulator, "--v0", repr(v0), "--angle", repr(angle), "--drag", repr(drag),
                    "--points", "2", "--out", out, "--trajectory", f"fresh_{i}.npy"], check=True)
    truth = json.load(open(out))["range"]
    fresh.append({"V0": v0, "ANGLE": angle, "DRAG": drag, "predicted": float(fpred[i]),
                  "simulated": truth, "error": float(fpred[i] - truth)})
bound = a.fresh_fraction * baseline
passed = all(abs(f["error"]) <= bound for f in fresh)

metrics = {"heldout_rows": len(y), "heldout_rmse": rmse, "mean_predictor_rmse": baseline,
           "heldout_rmse_over_baseline": rmse / baseline, "model": card["hidden"],
           "fresh": fresh, "fresh_bound": bound, "fresh_passed": passed}
json.dump(metrics, open(a.out, "w"), indent=1)
print(f"held out ({len(y)} simulations): RMSE {rmse:.3g} m, mean predictor {baseline:.3g} m; "
      f"fresh ({len(fresh)}): max |error| {max(abs(f['error']) for f in fresh):.3g} m, "
      f"bound {bound:.3g} m: {'passed' if passed else 'FAILED'}")
sys.exit(0 if passed else 1)
