#!/usr/bin/python3
"""The loop's decider: ranks one rung's trials by final validation RMSE and keeps the better half.

    select_trials.py TRIAL_DIR ITERATION

Reads every trial's config.csv and model/report.json under TRIAL_DIR (a trial without a report
failed: it ranks last). Writes, in the current directory:
  rung.json  every trial of the rung, best first: config, val RMSE, seconds;
  next.csv   the better half (ID,LR,WIDTH,BATCH,EPOCHS) with the epochs doubled: the next rung;
  best.env   the best configuration, as shell assignments (the final training sources it), with
             the epochs doubled once more;
and touches MERLIN_LOOP_AGAIN while more than one trial is kept.
"""
import glob
import json
import math
import os
import sys

trial_dir, iteration = sys.argv[1], int(sys.argv[2])
trials = []
for cfg in sorted(glob.glob(os.path.join(trial_dir, "**", "config.csv"), recursive=True)):
    ident, lr, width, batch, epochs = open(cfg).read().strip().split(",")
    report = os.path.join(os.path.dirname(cfg), "model", "report.json")
    rmse, seconds = math.inf, None
    if os.path.exists(report):
        r = json.load(open(report))
        rmse, seconds = r["final_val_rmse"], r["total_seconds"]
    trials.append({"id": int(ident), "lr": lr, "width": int(width), "batch": int(batch),
                   "epochs": int(epochs), "val_rmse": rmse, "seconds": seconds})
if not trials:
    sys.exit(f"no trials under {trial_dir}")
trials.sort(key=lambda t: (t["val_rmse"], t["id"]))
kept = trials[:max(1, len(trials) // 2)]

json.dump({"rung": iteration, "trials": [dict(t, val_rmse=t["val_rmse"] if math.isfinite(t["val_rmse"]) else None)
                                         for t in trials]}, open("rung.json", "w"), indent=1)
with open("next.csv", "w") as f:
    for t in kept:
        f.write(f"{t['id']},{t['lr']},{t['width']},{t['batch']},{2 * t['epochs']}\n")
b = trials[0]
with open("best.env", "w") as f:
    f.write(f"ID={b['id']} LR={b['lr']} WIDTH={b['width']} BATCH={b['batch']} EPOCHS={2 * b['epochs']}\n")
print(f"rung {iteration}: {len(trials)} trials, best #{b['id']} (lr {b['lr']}, width {b['width']}, "
      f"batch {b['batch']}, {b['epochs']} epochs) val RMSE {b['val_rmse']:.3g}; keeping {len(kept)}")
if len(kept) > 1:
    open("MERLIN_LOOP_AGAIN", "w").close()
