#!/usr/bin/env python3
"""Checks a finished tune_demo search in a workspace (tests/integration/tune_local.sh).

usage: check_search.py WORKSPACE [--killed]

What must hold, each a line "ok ..." or "FAIL ..." (exit 1 on any FAIL):
  - the journal records each task's result at most once (promotions decided once);
  - every trial's runs resume from its checkpoint: the epochs a run starts from never go back,
    a rung is trained once (or twice for a task that was running when the run was killed);
  - metrics.jsonl holds every epoch 1..budget reached, each once (or twice around a kill);
  - a pruned trial (MERLIN_PRUNED in its directory) ended at the rung it was pruned at
    (trials.csv: that rung, no value, `pruned`), below that rung's budget, and was worse
    there than the cut, which is the value at that budget of a trial that finished the rung
    with a result; at least `keep` such trials were better;
  - the rungs look like ASHA's: 27 trials at rung 0, at least floor(n/3) promoted from each
    rung, one trial or more at the last;
  - best.json names the leader of trials.csv, at the full budget, and its configuration is
    within 0.12 of the known optimum (loss (x-0.3)^2 + (y+0.2)^2 = 0).
"""
import csv
import json
import os
import struct
import sys

ws = sys.argv[1]
killed = "--killed" in sys.argv
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails += 1


search = os.path.join(ws, "search")
with open(os.path.join(search, "trials.csv")) as f:
    rows = list(csv.DictReader(f))
with open(os.path.join(search, "best.json")) as f:
    best = json.load(f)
budgets = [1, 3, 9, 27]

# The journals: a 16-byte header, then 24-byte records (instance u32, time u32, task u64,
# outcome u8, started u8, kind u8). A local run's one journal has a result record (kind 2) for
# each task that ran; a distributed study's workers each journal the commits they made
# (kind 0, not started; outcome 5 is a skipped task, which the Redis script marks itself).
info = os.path.join(ws, "merlin_info")
paths = [os.path.join(info, "merlin.journal")]
if not os.path.exists(paths[0]):
    tasks = os.path.join(info, "tasks")
    paths = [os.path.join(tasks, p) for p in sorted(os.listdir(tasks)) if p.endswith(".journal")]
results, commits = {}, {}
for path in paths:
    with open(path, "rb") as f:
        data = f.read()
    for at in range(16, len(data) - 23, 24):
        inst, = struct.unpack_from("<I", data, at)
        task, = struct.unpack_from("<Q", data, at + 8)
        outcome, started, kind = data[at + 16], data[at + 17], data[at + 18]
        if kind == 2:
            results[(inst, task)] = results.get((inst, task), 0) + 1
        elif kind == 0 and not started and outcome != 5 and inst == 0:  # the search's
            commits[(inst, task)] = commits.get((inst, task), 0) + 1
if not results:
    results = commits
check(all(n == 1 for n in results.values()),
      f"{len(results)} trial results recorded in {len(paths)} journal(s), each once")
ran = len(results)

def curve(tdir):
    with open(os.path.join(tdir, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def value_at(points, budget):
    v = None
    for p in points:
        if p["budget"] <= budget:
            v = p["value"]
    return v


reruns, pruned = 0, 0
for row in rows:
    t = int(row["trial"])
    rung = int(row["rung"])
    tdir = os.path.join(search, f"trial_{t:02d}")
    record = os.path.join(tdir, "MERLIN_PRUNED")
    if os.path.exists(record):
        pruned += 1
        with open(record) as f:
            pr = json.load(f)
        k = pr["rung"]
        low = budgets[k - 1] if k > 0 else 0
        check(pr["trial"] == t and k == rung and low < pr["budget"] < budgets[k]
              and row["value"] in ("", "nan") and row["state"] == "pruned",
              f"trial {t}: pruned at rung {k}, budget {pr['budget']}, inside the rung; "
              f"trials.csv: rung {rung}, value '{row['value']}', {row['state']}")
        # Those that finished rung k with a result (a subset of them when it was pruned).
        finished = [r for r in rows if int(r["trial"]) != t and (
            int(r["rung"]) > k or (int(r["rung"]) == k and r["value"] not in ("", "nan")))]
        at_b = [value_at(curve(os.path.join(search, f"trial_{int(r['trial']):02d}")), pr["budget"])
                for r in finished]
        better = [v for v in at_b if v is not None and v < pr["value"]]
        check(pr["value"] > pr["cut"] and pr["cut"] in at_b and len(better) >= pr["keep"] >= 1,
              f"trial {t}: its value {pr['value']:.4f} at budget {pr['budget']} was worse than "
              f"the cut {pr['cut']:.4f}; {len(better)} of {len(finished)} finished trials were better")
    else:
        pr = None
    with open(os.path.join(tdir, "runs.log")) as f:
        runs = [tuple(map(int, line.split())) for line in f if line.strip()]
    starts = [s for s, _ in runs]
    targets = [e for _, e in runs]
    distinct = sorted(set(targets))
    check(distinct == budgets[: rung + 1], f"trial {t}: rungs trained {distinct} up to rung {rung}")
    check(starts == sorted(starts) and starts[0] == 0,
          f"trial {t}: each run starts where the checkpoint was ({starts})")
    reruns += len(runs) - len(distinct)
    epochs = [p["budget"] for p in curve(tdir)]
    last = int(pr["budget"] if pr else budgets[rung])
    # A pruned run may write an epoch or more after the look that pruned it, before the
    # SIGTERM lands (up to the rung's budget).
    if pr and epochs and last <= max(epochs) <= budgets[rung]:
        last = max(epochs)
    want = list(range(1, last + 1))
    once = sorted(set(epochs)) == want
    twice_at_most = all(epochs.count(e) <= 2 for e in want)
    check(once and (len(epochs) == len(want) or (killed and twice_at_most)),
          f"trial {t}: epochs 1..{want[-1] if want else 0} trained, none from scratch again")
check(reruns == 0 or (killed and reruns <= 4), f"{reruns} rung(s) run twice (a kill: at most 4)")
# A pruned task has a result record (none) locally; on Redis its commit is MERLIN_SKIPPED, like
# the tasks that never ran, so it is not among `commits`.
expected = sum(int(r["rung"]) + 1 for r in rows) - (pruned if results is commits else 0)
check(ran == expected, f"{ran} tasks ran: one per trial and rung reached, and {pruned} pruned")

at = [sum(1 for r in rows if int(r["rung"]) >= k) for k in range(4)]
with_result = [sum(1 for r in rows if int(r["rung"]) >= k and r["state"] not in ("pruned", "failed"))
               for k in range(4)]
check(at[0] == 27, f"27 trials at rung 0 ({at[0]})")
for k in range(3):
    # (pruned trials have no result, so they cannot be among those promoted)
    check(at[k + 1] >= min(at[k] // 3, with_result[k]),
          f"rung {k}: {at[k + 1]} of {at[k]} promoted (at least a third of those with a result)")
check(at[3] >= 1, f"{at[3]} trial(s) trained to the full budget")

leader = rows[0]
check(int(leader["trial"]) == best["trial"] and best["budget"] == 27 and best["rung"] == 3,
      f"best.json names the leader, trial {best['trial']}, at budget {best['budget']}")
x, y = best["config"]["X"], best["config"]["Y"]
loss = (x - 0.3) ** 2 + (y + 0.2) ** 2
check(loss <= 0.12, f"the best configuration ({x:.3f}, {y:.3f}) has a true loss {loss:.4f} <= 0.12")
sys.exit(1 if fails else 0)
