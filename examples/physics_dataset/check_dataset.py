#!/usr/bin/python3
"""Checks a physics_dataset study's HDF5 file against the files its samples wrote.

    check_dataset.py WORKSPACE [DATASET.h5]

Every sample's row must hold, value for value, its inputs (the study's samples file), the
scalars and apex of its result.json and its trajectory.npy, with status 1. Prints one line of
figures and exits 0, or names the first difference and exits 1. Needs numpy and h5py (Debian:
python3-numpy, python3-h5py).
"""
import json
import os
import sys

import h5py
import numpy as np


def sample_dir(step_dir, sample, n, level_max_dirs):
    """The sample's directory, by Merlin's arithmetic: base-L digits, each padded."""
    levels = 0
    while n > 1 and level_max_dirs ** levels < n:
        levels += 1
    width = len(str(level_max_dirs))
    digits = []
    for _ in range(levels):
        digits.append(str(sample % level_max_dirs).zfill(width))
        sample //= level_max_dirs
    return os.path.join(step_dir, *reversed(digits))


def main():
    ws = sys.argv[1]
    h5 = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ws, "collect", "dataset.h5")
    samples = np.load(os.path.join(ws, "merlin_info", "samples.npy"))
    n = samples.shape[0]
    with h5py.File(h5, "r") as f:
        rows = int(f.attrs["rows_committed"])
        if rows != n:
            sys.exit(f"{h5}: {rows} rows, the study has {n} samples")
        ids = f["sample_ids"][:rows]
        if sorted(ids.tolist()) != list(range(n)):
            sys.exit(f"{h5}: sample_ids are not each sample once")
        status = f["status"][:rows]
        if not (status == 1).all():
            sys.exit(f"{h5}: status not all ok: {np.bincount(status)}")
        columns = [c.decode() if isinstance(c, bytes) else c for c in f["inputs"].attrs["columns"]]
        if columns != ["V0", "ANGLE", "DRAG"]:
            sys.exit(f"{h5}: input columns {columns}")
        inputs = f["inputs"][:rows]
        fields = {name: f["fields/" + name][:rows] for name in
                  ["result/range", "result/max_height", "result/flight_time",
                   "result/impact_speed", "result/impact_angle", "result/apex", "trajectory"]}
    for row, sid in enumerate(ids):
        d = sample_dir(os.path.join(ws, "simulate"), int(sid), n, 25)
        if not np.array_equal(inputs[row], samples[sid]):
            sys.exit(f"sample {sid}: inputs {inputs[row]} != samples file {samples[sid]}")
        with open(os.path.join(d, "result.json")) as fh:
            result = json.load(fh)
        for key in ["range", "max_height", "flight_time", "impact_speed", "impact_angle", "apex"]:
            if not np.array_equal(fields["result/" + key][row], np.asarray(result[key], dtype=float)):
                sys.exit(f"sample {sid} ({d}): {key} {fields['result/' + key][row]} != {result[key]}")
        traj = np.load(os.path.join(d, "trajectory.npy"))
        if not np.array_equal(fields["trajectory"][row], traj):
            sys.exit(f"sample {sid} ({d}): trajectory differs")
    # The physics, roughly: more drag, shorter range for like launches; every range positive.
    rng = fields["result/range"]
    if not (rng > 0).all():
        sys.exit("a range is not positive")
    print(f"{n} samples: every row equal to its sample's files; range {rng.min():.1f}..{rng.max():.1f} m, "
          f"trajectory {fields['trajectory'].shape[1:]} per sample")


if __name__ == "__main__":
    main()
