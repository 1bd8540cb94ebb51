"""After the loop: every iteration's metrics.json into curve.csv (iteration, samples,
held-out RMSE, decision) and summary.json (the last iteration, why the loop stopped).

    report.py LEARN_DIR
"""
import glob
import json
import os
import sys


def main():
    learn = sys.argv[1]
    its = []
    for path in glob.glob(os.path.join(learn, "iter.*", "metrics.json")):
        with open(path) as f:
            its.append(json.load(f))
    its.sort(key=lambda m: m["iteration"])
    with open("curve.csv", "w") as f:
        f.write("iteration,samples,heldout_rmse,decision\n")
        for m in its:
            f.write(f"{m['iteration']},{m['samples']},{m['heldout_rmse']:.6g},{m['decision']}\n")
    last = its[-1]
    summary = {"iterations": len(its), "samples": last["samples"],
               "heldout_rmse": last["heldout_rmse"], "target": last["target"],
               "stopped_by": last["decision"]}
    with open("summary.json", "w") as f:
        json.dump(summary, f, indent=1)
    print(open("curve.csv").read().rstrip())
    print(f"stopped after {len(its)} iterations, {last['samples']} simulations: {last['decision']}")


if __name__ == "__main__":
    main()
