#!/usr/bin/env python3
"""Synchronous successive halving, the baseline of tune_bench.sh: the same configurations,
objective and budgets as a tune_demo search, run rung by rung on a pool of N processes,
each rung waiting for its slowest trial before the best third goes on (as a driver script
around a scheduler does).

usage: tune_sync_sh.py TRIALS_CSV OBJECTIVE OUT_DIR JOBS SECONDS_PER_EPOCH SPREAD
Prints one JSON line: wall seconds, time of the first full-budget result, final best value,
its configuration.
"""
import concurrent.futures as cf
import csv
import json
import math
import os
import subprocess
import sys
import time

trials_csv, objective, out, jobs, spe, spread = sys.argv[1:7]
jobs = int(jobs)
with open(trials_csv) as f:
    configs = {int(r["trial"]): (float(r["X"]), float(r["Y"])) for r in csv.DictReader(f)}
budgets = [1, 3, 9, 27]
start = time.time()


def run(trial, epochs):
    d = os.path.join(out, f"trial_{trial:02d}")
    os.makedirs(d, exist_ok=True)
    x, y = configs[trial]
    subprocess.run(["python3", objective, "--x", repr(x), "--y", repr(y), "--epochs", str(epochs),
                    "--trial-dir", d, "--seconds-per-epoch", spe, "--spread", spread], check=True)
    with open(os.path.join(d, "metrics.jsonl")) as f:
        last = json.loads(f.read().splitlines()[-1])
    return trial, last["value"], last["t"]


alive = sorted(configs)
first_full = None
with cf.ThreadPoolExecutor(jobs) as pool:
    for k, b in enumerate(budgets):
        results = list(pool.map(lambda t: run(t, b), alive))
        results.sort(key=lambda r: (r[1], r[0]))
        if k + 1 == len(budgets):
            first_full = min(r[2] for r in results) - start
            best = results[0]
            break
        alive = sorted(r[0] for r in results[: max(1, math.floor(len(results) / 3))])
wall = time.time() - start
print(json.dumps({"wall": wall, "first_full": first_full, "best_value": best[1],
                  "best_trial": best[0], "best_config": configs[best[0]]}))
