#!/usr/bin/python3
"""An asynchronous Optuna search inside a Merlin study (Debian: python3-optuna, 3.1).

    optuna_lane.py search --trials N --epochs E --data dataset.h5 [--prune median|none] ...
    optuna_lane.py best                                     # best.json: the best trial

`search` is one lane: it asks Optuna for one trial, trains it with merlin-train, tells the
result, and asks again as soon as that trial is over, until the study holds N trials. Several
lanes (tasks of the `search` step, on as many workers as there are) share one study:

- The study lives in the study's own Redis when the step sees MERLIN_BROKER_URL (the step has
  `pass_broker: true`; JournalRedisStorage), else in $MERLIN_WORKSPACE/optuna.journal
  (JournalFileStorage, for `merlin run --local`). Its name is the workspace's, so each run of
  the spec has its own.
- TPE with `constant_liar`, so lanes asking at the same time get different proposals, and
  `--startup` (4) random trials instead of Optuna's default 10.
- merlin-train prints one line per epoch; each epoch's validation RMSE is reported to Optuna
  (`trial.report`). When the pruner (median of the trials before it at the same epoch, after
  `--warmup` epochs) says so, the lane stops merlin-train (SIGTERM) and tells the trial PRUNED.
- A lane that is killed leaves its trial RUNNING; once it has run longer than `--stale`
  seconds (600), the next lane to look tells it FAIL and it no longer counts against N.

Each trial trains in $WORKSPACE/trials/<number>/ (train.log, model/). Lanes stop asking once
the study holds N trials that are finished or running; lanes that ask at the same moment may
each take the last one, so a study can end with up to (lanes - 1) more than N.
"""
import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import warnings

import optuna
from optuna.storages import JournalFileStorage, JournalRedisStorage, JournalStorage
from optuna.trial import TrialState

optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # the journal
DONE = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)


def storage():
    url = os.environ.get("MERLIN_BROKER_URL", "")
    if url.startswith(("redis://", "rediss://")):
        return JournalStorage(JournalRedisStorage(url)), "redis"
    path = os.path.join(os.environ["MERLIN_WORKSPACE"], "optuna.journal")
    return JournalStorage(JournalFileStorage(path)), path


def open_study(a, seed=0):
    pruner = {"median": lambda: optuna.pruners.MedianPruner(n_startup_trials=a.startup,
                                                            n_warmup_steps=a.warmup),
              "asha": lambda: optuna.pruners.SuccessiveHalvingPruner(min_resource=a.warmup,
                                                                     reduction_factor=3),
              "none": optuna.pruners.NopPruner}[a.prune]()
    sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=a.startup, constant_liar=True)
    name = os.path.basename(os.environ["MERLIN_WORKSPACE"].rstrip("/"))
    s, where = storage()
    return optuna.create_study(study_name=name, storage=s, direction="minimize", sampler=sampler,
                               pruner=pruner, load_if_exists=True), where


EPOCH = re.compile(r"^epoch=(\d+)/\d+ .*?val_rmse=([0-9.eE+-]+|nan|inf)")


def run_trial(study, a, workdir):
    t = study.ask()
    lr = t.suggest_float("lr", 1e-3, 2e-2, log=True)
    width = t.suggest_categorical("width", [16, 32, 64])
    batch = t.suggest_categorical("batch", [16, 32, 64])
    d = os.path.join(workdir, "trials", str(t.number))
    os.makedirs(d, exist_ok=True)
    t.set_user_attr("lane", f"{os.uname().nodename}:{os.getpid()}")
    cmd = ["merlin-train", "--data", a.data, "--inputs", "V0,ANGLE,DRAG", "--target", "result/range",
           "--hidden", f"{width},{width}", "--lr", f"{lr:.6g}", "--batch", str(batch),
           "--epochs", str(a.epochs), "--seed", "1", "--out", os.path.join(d, "model")]
    started, epochs, value, pruned = time.monotonic(), 0, None, False
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(d, "train.log"), "w") as log:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True)
        for line in p.stdout:
            log.write(line)
            m = EPOCH.match(line)
            if not m:
                continue
            epochs, value = int(m.group(1)), float(m.group(2))
            t.report(value, epochs)
            if t.should_prune():
                pruned = True
                p.send_signal(signal.SIGTERM)
                break
        p.stdout.close()
        rc = p.wait()
    seconds = time.monotonic() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)  # merlin-train's, once reaped
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    t.set_user_attr("epochs_run", epochs)
    t.set_user_attr("trainer_seconds", round(seconds, 3))
    t.set_user_attr("trainer_cpu_seconds", round(cpu, 3))
    if pruned:
        study.tell(t, state=TrialState.PRUNED)
        state = "pruned"
    elif rc != 0 or value is None:
        study.tell(t, state=TrialState.FAIL)
        state = f"failed (merlin-train exit {rc})"
    else:
        study.tell(t, value)
        state = f"val RMSE {value:.4g}"
    print(f"trial {t.number}: lr {lr:.3g} width {width} batch {batch}: {epochs} epochs, "
          f"{seconds:.2f} s, {state}", flush=True)


def search(a):
    study, where = open_study(a, seed=a.seed)
    print(f"lane {a.lane}: study {study.study_name} in {where}, {a.trials} trials, pruner {a.prune}",
          flush=True)
    while True:
        trials = study.get_trials(deepcopy=False)
        now = time.time()
        for t in trials:  # a lane that died leaves its trial RUNNING: give it up after --stale s
            if t.state == TrialState.RUNNING and t.datetime_start and \
                    now - t.datetime_start.timestamp() > a.stale:
                study.tell(t.number, state=TrialState.FAIL)
        live = [t for t in trials if t.state in DONE + (TrialState.RUNNING,)]
        if len(live) >= a.trials:
            break
        run_trial(study, a, os.getcwd())


def best(a):
    study, _ = open_study(a)
    b = study.best_trial
    trials = study.get_trials(deepcopy=False)
    out = {"number": b.number, "params": b.params, "val_rmse": b.value,
           "states": {s.name: sum(t.state == s for t in trials) for s in TrialState},
           "trainer_epochs": sum(t.user_attrs.get("epochs_run", 0) for t in trials),
           "trainer_seconds": round(sum(t.user_attrs.get("trainer_seconds", 0) for t in trials), 3),
           "trainer_cpu_seconds": round(sum(t.user_attrs.get("trainer_cpu_seconds", 0) for t in trials), 3),
           "trials": [{"number": t.number, "state": t.state.name, "params": t.params,
                       "value": t.value, "epochs_run": t.user_attrs.get("epochs_run"),
                       "lane": t.user_attrs.get("lane")} for t in trials]}
    json.dump(out, open("best.json", "w"), indent=1)
    print(f"best of {len(trials)} ({out['states']['PRUNED']} pruned, {out['trainer_epochs']} epochs "
          f"trained in {out['trainer_seconds']} s, {out['trainer_cpu_seconds']} CPU s): "
          f"#{b.number} {b.params} val RMSE {b.value:.4g}")


p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("command", choices=["search", "best"])
p.add_argument("--data")
p.add_argument("--trials", type=int, default=16)
p.add_argument("--epochs", type=int, default=80)
p.add_argument("--prune", choices=["median", "asha", "none"], default="median",
               help="median: stop a trial worse than the median of earlier ones at the same epoch; "
                    "asha: asynchronous successive halving (rungs at warmup x 3^k epochs)")
p.add_argument("--startup", type=int, default=4, help="random trials before TPE, and before pruning")
p.add_argument("--warmup", type=int, default=10, help="epochs before a trial may be pruned")
p.add_argument("--seed", type=int, default=0)
p.add_argument("--lane", default="1")
p.add_argument("--stale", type=float, default=600, help="seconds after which a RUNNING trial is given up")
a = p.parse_args()
if a.command == "search":
    if not a.data:
        sys.exit("optuna_lane.py search: --data is required")
    search(a)
else:
    best(a)
