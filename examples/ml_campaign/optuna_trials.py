#!/usr/bin/python3
"""Optuna's ask-and-tell interface driven by a Merlin loop: Optuna proposes, Merlin trains one
trial per task. The study lives in an SQLite file (Debian: python3-optuna).

    optuna_trials.py ask  DB N SEED      > trials.csv   # N new trials: NUMBER,LR,WIDTH,BATCH
    optuna_trials.py tell DB TRIAL_DIR                  # each trial's val RMSE (or FAIL) back
    optuna_trials.py best DB                            # best.json: the best trial so far

`tell` reads TRIAL_DIR/**/config.csv (the trial's NUMBER first) and model/report.json beside it;
a trial without a report is told FAIL.
"""
import glob
import json
import os
import sys

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)
cmd, db = sys.argv[1], sys.argv[2]


def study(seed=None):
    return optuna.create_study(study_name="surrogate", storage=f"sqlite:///{db}", direction="minimize",
                               sampler=optuna.samplers.TPESampler(seed=seed), load_if_exists=True)


if cmd == "ask":
    n, seed = int(sys.argv[3]), int(sys.argv[4])
    s = study(seed)
    for _ in range(n):
        t = s.ask()
        lr = t.suggest_float("lr", 1e-4, 1e-2, log=True)
        width = t.suggest_categorical("width", [16, 32, 64])
        batch = t.suggest_categorical("batch", [16, 32, 64])
        print(f"{t.number},{lr:.6g},{width},{batch}")
elif cmd == "tell":
    s = study()
    for cfg in sorted(glob.glob(os.path.join(sys.argv[3], "**", "config.csv"), recursive=True)):
        number = int(open(cfg).read().split(",")[0])
        report = os.path.join(os.path.dirname(cfg), "model", "report.json")
        if os.path.exists(report):
            s.tell(number, json.load(open(report))["final_val_rmse"])
        else:
            s.tell(number, state=optuna.trial.TrialState.FAIL)
    done = [t for t in s.trials if t.state == optuna.trial.TrialState.COMPLETE]
    print(f"{len(done)} trials told; best #{s.best_trial.number} {s.best_trial.params} "
          f"val RMSE {s.best_value:.3g}")
elif cmd == "best":
    s = study()
    b = s.best_trial
    json.dump({"number": b.number, "params": b.params, "val_rmse": b.value,
               "trials": [{"number": t.number, "state": t.state.name, "params": t.params, "value": t.value}
                          for t in s.trials]}, open("best.json", "w"), indent=1)
    print(f"best of {len(s.trials)}: #{b.number} {b.params} val RMSE {b.value:.3g}")
else:
    sys.exit(__doc__)
