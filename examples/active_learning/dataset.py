"""Reads the collected dataset: the HDF5 file `merlin collect` writes (docs/collect.md), with
the integer `iteration` column it adds for a step inside a loop. Only ok rows (status 1) of
the committed ones, without NaN, are returned."""
import h5py
import numpy as np


def read(path):
    """{'OMEGA', 'ZETA', 'amplitude', 'iteration'}: equal-length arrays, one entry per ok row."""
    with h5py.File(path, "r") as f:
        n = int(f.attrs["rows_committed"])
        ok = f["status"][:n] == 1
        cols = [c.decode() if isinstance(c, bytes) else str(c) for c in f["inputs"].attrs["columns"]]
        inputs = f["inputs"][:n][ok]
        out = {c: inputs[:, cols.index(c)] for c in ("OMEGA", "ZETA")}
        out["amplitude"] = f["fields/result/amplitude"][:n][ok]
        out["iteration"] = f["iteration"][:n][ok].astype(int)
    keep = np.isfinite(out["OMEGA"]) & np.isfinite(out["ZETA"]) & np.isfinite(out["amplitude"])
    return {k: v[keep] for k, v in out.items()}
