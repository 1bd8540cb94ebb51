"""Reading a `merlin collect` HDF5 file for training: a PyTorch Dataset, one shard per rank.

    from merlin_dataset import CollectedDataset
    train = CollectedDataset("dataset.h5", inputs=["V0", "ANGLE", "DRAG"],
                             targets=["result/range"], split="train", val_fraction=0.2)
    x, y = train[0]                      # float32 tensors: (inputs,), (targets,)

Which rows (docs/collect.md, "The file"): the first `rows_committed` rows (a collect that is
appending may have written more, not yet committed), whose `/status` is 1 (ok), with no NaN in
a chosen input or target. They are put in sample-id order, so a file collected in another order
gives the same rows, split and shards.

The split: `val_fraction` of the rows, drawn with `seed` from the rows in sample-id order,
validate; the rest train. Every rank draws the same split.

The shard: with `rank`/`world_size` (default: the RANK and WORLD_SIZE variables that
`$(LAUNCHER)` sets, docs/training.md), a rank keeps rows rank, rank + world_size, ... of its
split, and reads only those from the file. Shards differ in length by at most one row; use
`padded=True` to repeat a rank's first rows up to the longest shard when every rank must run
the same number of steps (DistributedDataParallel does).

Needs h5py and numpy; torch only for the Dataset (CollectedArrays works without it). Shipped
with merlin: steps find it on PYTHONPATH, which merlin extends with its own python directory.
"""
import os

import h5py
import numpy as np

__all__ = ["CollectedArrays", "CollectedDataset", "read_index"]


def read_index(path):
    """The file's committed rows: (sample_ids, status) as numpy arrays, and its attributes."""
    with h5py.File(path, "r") as f:
        if f.attrs.get("format") != "merlin-collect":
            raise ValueError(f"{path}: not a merlin collect file (no format=merlin-collect)")
        n = int(f.attrs["rows_committed"])
        return f["sample_ids"][:n], f["status"][:n], dict(f.attrs)


class CollectedArrays:
    """The chosen rows of a collect file as float32 numpy arrays `x` (rows, inputs) and `y`
    (rows, targets, flattened), with `sample_ids`, `input_names` and `target_names`."""

    def __init__(self, path, inputs=None, targets=(), split="all", val_fraction=0.2, seed=1,
                 rank=None, world_size=None, padded=False):
        if split not in ("all", "train", "val"):
            raise ValueError(f"split must be all, train or val, not {split!r}")
        if not targets:
            raise ValueError("name at least one target field, e.g. targets=['result/range']")
        self.rank = int(os.environ.get("RANK", 0)) if rank is None else rank
        self.world_size = int(os.environ.get("WORLD_SIZE", 1)) if world_size is None else world_size
        if not 0 <= self.rank < self.world_size:
            raise ValueError(f"rank {self.rank} is not in 0..{self.world_size - 1}")
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") != "merlin-collect":
                raise ValueError(f"{path}: not a merlin collect file (no format=merlin-collect)")
            n = int(f.attrs["rows_committed"])
            ids = f["sample_ids"][:n]
            ok = f["status"][:n] == 1
            columns = [c.decode() if isinstance(c, bytes) else str(c)
                       for c in f["inputs"].attrs["columns"]] if "inputs" in f else []
            names = list(columns) if inputs is None else list(inputs)
            for name in names:
                if name not in columns:
                    raise ValueError(f"{path}: no input column {name!r} (it has {columns})")
            for t in targets:
                if f"fields/{t}" not in f:
                    raise ValueError(f"{path}: no field {t!r} (it has {list(f.attrs['fields'])})")
            col = [columns.index(c) for c in names]
            # NaN anywhere in a chosen column drops the row: read the chosen columns of every
            # ok row once, block by block, keeping only a mask.
            usable = ok.copy()
            for start in range(0, n, 65536):
                stop = min(n, start + 65536)
                block = usable[start:stop]
                if col:
                    xs = f["inputs"][start:stop][:, col]
                    block &= ~np.isnan(xs).any(axis=1)
                for t in targets:
                    ys = f[f"fields/{t}"][start:stop].reshape(stop - start, -1)
                    if ys.dtype.kind == "f":
                        block &= ~np.isnan(ys).any(axis=1)
                    if f"missing/{t}" in f:  # a field without NaN (integers, bool): its mask
                        gone = f[f"missing/{t}"][start:stop].reshape(stop - start, -1)
                        block &= ~gone.astype(bool).any(axis=1)
            rows = np.flatnonzero(usable)
            rows = rows[np.argsort(ids[rows], kind="stable")]  # sample-id order
            if split != "all":
                order = np.random.default_rng(seed).permutation(len(rows))
                n_val = int(round(len(rows) * val_fraction))
                chosen = order[:n_val] if split == "val" else order[n_val:]
                rows = rows[np.sort(chosen)]
            self.total_rows = len(rows)  # of the split, over every rank
            mine = rows[self.rank::self.world_size]
            if padded:
                longest = -(-len(rows) // self.world_size)
                if 0 < len(mine) < longest:
                    mine = np.concatenate([mine, mine[: longest - len(mine)]])
            # h5py reads a sorted selection; put the rows back in this shard's order after.
            read_order = np.argsort(mine, kind="stable")
            sorted_rows = mine[read_order]
            back = np.empty_like(read_order)
            back[read_order] = np.arange(len(read_order))
            def take(ds):
                if len(sorted_rows) == 0:
                    return np.zeros((0,) + ds.shape[1:], dtype=ds.dtype)
                uniq, inverse = np.unique(sorted_rows, return_inverse=True)
                return ds[uniq][inverse][back]
            self.sample_ids = ids[mine]
            self.input_names = names
            self.x = (take(f["inputs"])[:, col] if col else np.zeros((len(mine), 0))).astype(np.float32)
            ys, self.target_names = [], []
            for t in targets:
                y = take(f[f"fields/{t}"]).reshape(len(mine), -1)
                ys.append(y)
                self.target_names += [t] if y.shape[1] == 1 else [f"{t}[{i}]" for i in range(y.shape[1])]
            self.y = np.concatenate(ys, axis=1).astype(np.float32)

    def __len__(self):
        return len(self.x)


try:
    import torch
    from torch.utils.data import Dataset

    class CollectedDataset(Dataset):
        """CollectedArrays as a torch Dataset of (x, y) float32 tensors. Same arguments."""

        def __init__(self, path, **kwargs):
            self.arrays = CollectedArrays(path, **kwargs)
            self.x = torch.from_numpy(self.arrays.x)
            self.y = torch.from_numpy(self.arrays.y)

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return self.x[i], self.y[i]

except ImportError:  # no torch: CollectedArrays still works
    pass
