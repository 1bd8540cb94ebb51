"""The study's loop decider: train the ensemble on every simulation so far, score it on the
held-out set, propose the next K simulations, and ask for another iteration unless the target
error is reached or the budget is spent.

    learn.py --data dataset.h5 --heldout heldout.csv --iteration I --k K --target T
             --budget B --max-iterations M --seed S

Reads the collected dataset (rows of every iteration so far: inputs OMEGA, ZETA and the field
result/amplitude) and heldout.csv (omega,zeta,amplitude). Writes in the current directory:
metrics.json (this iteration's figures and decision), next.csv (the proposal, no header, as
samples_from reads it) and MERLIN_LOOP_AGAIN when the loop should go on.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dataset  # noqa: E402
import rounds  # noqa: E402
import space  # noqa: E402
import surrogate  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--heldout", required=True)
    p.add_argument("--iteration", type=int, required=True)
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--target", type=float, required=True)
    p.add_argument("--budget", type=int, required=True)
    p.add_argument("--max-iterations", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--members", type=int, default=surrogate.MEMBERS, help="MLPs in the ensemble")
    p.add_argument("--train-iterations", type=int, default=surrogate.ITERATIONS,
                   help="L-BFGS iterations per member")
    a = p.parse_args()

    d = dataset.read(a.data)
    h = np.genfromtxt(a.heldout, delimiter=",", names=True)
    x = space.to_unit(d["OMEGA"], d["ZETA"])
    hx = space.to_unit(h["omega"], h["zeta"])
    t0 = time.time()
    ens, error = rounds.fit_and_score(x, d["amplitude"], hx, h["amplitude"], a.seed * 1000 + a.iteration,
                                      members=a.members, iterations=a.train_iterations)
    train_s = time.time() - t0
    n = len(x)
    decision = rounds.decide(error, a.target, n, a.k, a.budget, a.iteration, a.max_iterations)
    per_iter = {str(int(i)): int(c) for i, c in zip(*np.unique(d["iteration"], return_counts=True))}
    metrics = {"iteration": a.iteration, "samples": n, "heldout_rmse": error,
               "heldout_std": float(np.std(h["amplitude"])), "target": a.target, "budget": a.budget,
               "decision": decision, "rows_per_iteration": per_iter,
               "train_seconds": round(train_s, 3)}
    if decision == "again":
        new = rounds.next_points(ens, x, a.k, a.seed * 1000 + a.iteration)
        omega, zeta = space.from_unit(new)
        np.savetxt("next.csv", np.column_stack([omega, zeta]), delimiter=",", fmt="%.10g")
        metrics["proposed"] = len(new)
    with open("metrics.json.tmp", "w") as f:
        json.dump(metrics, f, indent=1)
    os.replace("metrics.json.tmp", "metrics.json")
    if decision == "again":
        open("MERLIN_LOOP_AGAIN", "w").close()
    print(f"iteration {a.iteration}: {n} samples, held-out RMSE {error:.4g} (target {a.target}), "
          f"trained in {train_s:.1f} s: {decision}")


if __name__ == "__main__":
    main()
