#!/usr/bin/env python3
"""A synthetic training run with a known optimum, for merlin's tune: block (docs/tuning.md).

The "model" of a trial with configuration (x, y) reaches, after `epochs` epochs,
    loss = (x - 0.3)^2 + (y + 0.2)^2 + noise / sqrt(epochs)
so the best configuration is (0.3, -0.2) with loss 0, and short runs are noisy: the ranking
at a low budget is only roughly the ranking at the full one. Each epoch sleeps
`--seconds-per-epoch`, so trials that train longer take longer.

Like a real trainer it checkpoints: the epochs done are kept in the trial's directory, and a
promoted trial (run again with a larger --epochs) goes on from there, never from scratch.
Each epoch appends {"budget": epoch, "value": loss} to metrics.jsonl.
"""
import argparse
import json
import math
import os
import random
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--x", type=float, required=True)
    p.add_argument("--y", type=float, required=True)
    p.add_argument("--epochs", type=int, required=True)
    p.add_argument("--trial-dir", required=True)
    p.add_argument("--seconds-per-epoch", type=float, default=0.0)
    p.add_argument("--noise", type=float, default=0.05)
    p.add_argument("--spread", type=float, default=0.0,
                   help="trials differ in speed: an epoch takes seconds-per-epoch times "
                        "(1 + spread * u), u in [0, 1) fixed per configuration")
    a = p.parse_args()

    ckpt = os.path.join(a.trial_dir, "checkpoint.json")
    done = 0
    if os.path.exists(ckpt):
        with open(ckpt) as f:
            done = json.load(f)["epochs"]
    # Each run of the trial says which epochs it trained: a test checks none is trained twice.
    with open(os.path.join(a.trial_dir, "runs.log"), "a") as log:
        log.write(f"{done} {a.epochs}\n")
    target = (a.x - 0.3) ** 2 + (a.y + 0.2) ** 2
    slowness = 1 + a.spread * random.Random(hash((round(a.x, 12), round(a.y, 12)))).random()
    for epoch in range(done + 1, a.epochs + 1):
        time.sleep(a.seconds_per_epoch * slowness)
        rng = random.Random(hash((round(a.x, 12), round(a.y, 12), epoch)) & 0xFFFFFFFF)
        loss = target + a.noise * rng.gauss(0, 1) / math.sqrt(epoch)
        with open(os.path.join(a.trial_dir, "metrics.jsonl"), "a") as m:
            m.write(json.dumps({"budget": epoch, "value": loss, "t": time.time()}) + "\n")
        tmp = ckpt + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"epochs": epoch}, f)
        os.replace(tmp, ckpt)


if __name__ == "__main__":
    main()
