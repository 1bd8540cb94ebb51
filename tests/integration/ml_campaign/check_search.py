#!/usr/bin/python3
"""Checks the finished `search` step (tune:, ASHA) of an ml_campaign workspace
(tests/integration/ml_campaign.sh).

usage: check_search.py WORKSPACE TRIALS [--killed]

What must hold, each a line "ok ..." or "FAIL ..." (exit 1 on any FAIL), then one line
"figures: ..." (tasks run, epochs trained, the best configuration):
  - trials.csv lists TRIALS trials, each with the rung it reached, its budget (20, 60 or 180
    epochs) and a value equal to the last line of its own merlin-train --metrics file;
  - the rungs are ASHA's with eta 3: every trial at rung 0, of the n trials at a rung at least
    n // 3 promoted (the best n // 3 by that rung's value among them), one or more at the last;
    a trial at the last rung is `completed`, any other `stopped`; a pruned one (MERLIN_PRUNED in
    its directory, docs/tuning.md) is `pruned`, without a value, at the rung it was pruned at,
    its metrics ending below that rung's budget;
  - each trial was trained once per rung it reached (merlin-train's start lines in its
    train.log: every promotion run once), each later rung resumed from the checkpoint of the
    rung below, and its metrics file holds epochs 1..budget once each. With --killed a task
    that was running at the kill may have run twice (at most 2 such: the run's 2 slots);
  - best.json and best.env name trials.csv's first row, at 180 epochs;
  - the final training (train, train_1rank) used best.env's configuration: the widths in its
    model.json, twice the best budget in its report.json.
"""
import csv
import glob
import json
import os
import re
import shlex
import sys

ws, n_trials = sys.argv[1], int(sys.argv[2])
killed = "--killed" in sys.argv
budgets = [20, 60, 180]
eta = 3
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails += 1


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)


search = os.path.join(ws, "search")
with open(os.path.join(search, "trials.csv")) as f:
    rows = list(csv.DictReader(f))
with open(os.path.join(search, "best.json")) as f:
    best = json.load(f)
with open(os.path.join(search, "best.env")) as f:
    env = dict(shlex.split(line)[0].split("=", 1) for line in f if line.strip())

check(len(rows) == n_trials and sorted(int(r["trial"]) for r in rows) == list(range(n_trials)),
      f"trials.csv lists {len(rows)} trials (want {n_trials})")
width = len(str(n_trials - 1))
runs_total = reruns = epochs_total = 0
rung_value = {}  # (trial, rung) -> that rung's value, from the trial's own metrics file
for r in rows:
    t, rung = int(r["trial"]), int(r["rung"])
    tdir = os.path.join(search, f"trial_{t:0{width}d}")
    pruned = None
    if os.path.exists(os.path.join(tdir, "MERLIN_PRUNED")):
        with open(os.path.join(tdir, "MERLIN_PRUNED")) as f:
            pruned = json.load(f)
        check(pruned["rung"] == rung and r["value"] == "" and r["state"] == "pruned" and
              (budgets[rung - 1] if rung else 0) < pruned["budget"] < budgets[rung],
              f"trial {t}: pruned at rung {rung}, epoch {pruned['budget']}, no value, "
              f"{r['state']}")
    check(int(r["budget"]) == budgets[rung], f"trial {t}: rung {rung}, budget {r['budget']}")
    with open(os.path.join(tdir, "metrics.jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    epochs = [m["budget"] for m in lines]
    epochs_total += len(epochs)
    last = int(pruned["budget"]) if pruned else budgets[rung]
    # A pruned run may write an epoch or more after the look that pruned it, before the
    # SIGTERM lands (up to the rung's budget).
    if pruned and epochs and last <= max(epochs) <= budgets[rung]:
        last = max(epochs)
    want = list(range(1, last + 1))
    check(sorted(set(epochs)) == want and
          (len(epochs) == len(want) or (killed and all(epochs.count(e) <= 2 for e in want))),
          f"trial {t}: metrics hold epochs 1..{last}" + ("" if killed else ", each once"))
    for m in lines:
        k = budgets.index(m["budget"]) if m["budget"] in budgets else None
        if k is not None:
            rung_value[(t, k)] = m["value"]
    if not pruned:
        check(close(float(r["value"]), lines[-1]["value"]),
              f"trial {t}: trials.csv's value {r['value']} is its metrics file's last "
              f"{lines[-1]['value']}")
    with open(os.path.join(tdir, "train.log")) as f:
        log = f.read()
    runs = len(re.findall(r"^merlin-train ranks=1 ", log, re.M))
    runs_total += runs
    reruns += runs - (rung + 1)
    check(runs == rung + 1 or (killed and rung + 1 < runs <= rung + 2),
          f"trial {t}: trained {runs} time(s) for {rung + 1} rung(s)")
    for k in range(1, rung + 1):
        b = budgets[k - 1]
        check(re.search(rf"^resumed from .*/checkpoints/epoch-{b:06d}\.ckpt epoch={b} ", log, re.M),
              f"trial {t}: rung {k} resumed from epoch {b}'s checkpoint")
    state = "pruned" if pruned else "completed" if rung == len(budgets) - 1 else "stopped"
    check(r["state"] == state, f"trial {t}: {r['state']} (want {state})")
check(reruns == 0 or (killed and reruns <= 2), f"{reruns} task(s) run twice (a kill: at most 2)")

at = [[int(r["trial"]) for r in rows if int(r["rung"]) >= k] for k in range(len(budgets))]
check(len(at[0]) == n_trials, f"{len(at[0])} trials at rung 0")
for k in range(len(budgets) - 1):
    n, promoted = len(at[k]), set(at[k + 1])
    # A trial pruned at rung k has no value there and cannot be promoted.
    ranked = sorted((t for t in at[k] if (t, k) in rung_value), key=lambda t: (rung_value[(t, k)], t))
    top = ranked[: min(len(ranked), max(1, n // eta))]
    check(len(promoted) >= len(top) and set(top) <= promoted,
          f"rung {k}: {len(promoted)} of {n} promoted, the best {len(top)} among them {sorted(top)}")
check(len(at[-1]) >= 1, f"{len(at[-1])} trial(s) trained to the full budget")

lead = rows[0]
config = {k: lead[k] for k in ("LR", "WIDTH", "BATCH")}
check(best.get("trial") == int(lead["trial"]) and best.get("budget") == 180 and best.get("rung") == 2,
      f"best.json names trials.csv's leader, trial {best.get('trial')}, at {best.get('budget')} epochs")
check({k: str(v) for k, v in best.get("config", {}).items()} == config,
      f"best.json's configuration is the leader's {config}")
check(env.get("TRIAL") == lead["trial"] and env.get("EPOCHS") == "180" and
      all(env.get(k) == v for k, v in config.items()),
      f"best.env: TRIAL={env.get('TRIAL')} EPOCHS={env.get('EPOCHS')} and the leader's configuration")
for step in ("train", "train_1rank"):
    with open(os.path.join(ws, step, "model", "model.json")) as f:
        hidden = json.load(f)["hidden"]
    with open(os.path.join(ws, step, "model", "report.json")) as f:
        epochs = json.load(f)["epochs"]
    w = int(config["WIDTH"])
    check(hidden == [w, w] and epochs == 360,
          f"{step}: best.env's width ({hidden}) for twice its epochs ({epochs})")

n_pruned = len(glob.glob(os.path.join(search, "trial_*", "MERLIN_PRUNED")))
print(f"figures: {runs_total} trainings (tasks run), {n_pruned} pruned, {epochs_total} epochs trained, "
      f"{len(at[1])} and {len(at[2])} promoted to 60 and 180 epochs; best trial {lead['trial']} "
      f"(LR {float(config['LR']):.4g}, WIDTH {config['WIDTH']}, BATCH {config['BATCH']}) "
      f"val RMSE {float(lead['value']):.4g} m at 180 epochs")
sys.exit(1 if fails else 0)
