"""Gathers every simulation so far into one HDF5 file in the layout of `merlin collect`
(docs/collect.md: /sample_ids, /status, /inputs with its `columns`, /fields/result/amplitude,
the `rows_committed` attribute) plus the integer /iteration column, read from the simulate
step's result.json files (simulate/iter.<i>/.../result.json, which carry their inputs).

    gather.py WORKSPACE OUT.h5

The stand-in for `merlin collect --step simulate` where that cannot gather a step inside a
loop; dataset.py reads either file.
"""
import glob
import json
import os
import re
import sys

import h5py
import numpy as np


def main():
    workspace, out = sys.argv[1], sys.argv[2]
    rows = []
    for path in sorted(glob.glob(os.path.join(workspace, "simulate", "iter.*", "**", "result.json"),
                                 recursive=True)):
        it = int(re.search(r"/iter\.(\d+)/", path).group(1))
        with open(path) as f:
            r = json.load(f)
        rows.append((it, r["omega"], r["zeta"], r["amplitude"]))
    if not rows:
        sys.exit(f"gather: no simulate/iter.*/**/result.json under {workspace}")
    rows.sort(key=lambda r: r[0])
    a = np.array(rows, dtype=float)
    tmp = out + ".tmp"
    with h5py.File(tmp, "w") as f:
        f["sample_ids"] = np.arange(len(a), dtype=np.uint64)
        f["status"] = np.ones(len(a), dtype=np.uint8)
        f["iteration"] = a[:, 0].astype(np.int64)
        f["inputs"] = a[:, 1:3]
        f["inputs"].attrs["columns"] = ["OMEGA", "ZETA"]
        f["fields/result/amplitude"] = a[:, 3]
        f.attrs["rows_committed"] = len(a)
    os.replace(tmp, out)
    print(f"gather: {len(a)} rows from iterations {sorted(set(a[:, 0].astype(int).tolist()))}")


if __name__ == "__main__":
    main()
