"""merlin_dataset (adapters/ml/python) against a collect-format file made here, row by row:
committed rows only, ok status only, NaN in a chosen column drops the row, sample-id order,
a seeded split, shards that partition it, padding, flattened fields, and its errors."""
import os
import sys
import tempfile
import unittest

import h5py
import numpy as np

from merlin_dataset import CollectedArrays, CollectedDataset, read_index

# 12 rows written, 10 committed. Row i has sample id IDS[i]; x = id, y = 10 * id.
IDS = [7, 3, 9, 0, 5, 1, 8, 2, 6, 4, 11, 10]
STATUS = [1, 1, 2, 1, 1, 3, 1, 1, 1, 1, 1, 1]  # id 9 failed, id 1 malformed
NAN_X2 = {5}   # id 5: NaN in input column B
NAN_Y = {8}    # id 8: NaN in the target
COMMITTED = 10


def make(path, fmt="merlin-collect"):
    with h5py.File(path, "w") as f:
        f.attrs["format"] = fmt
        f.attrs["rows_committed"] = COMMITTED
        f.attrs["fields"] = ["result/y", "traj"]
        ids = np.array(IDS, dtype=np.uint64)
        f["sample_ids"] = ids
        f["status"] = np.array(STATUS, dtype=np.uint8)
        x = np.stack([ids.astype(float), ids * 0.5, -ids.astype(float)], axis=1)
        for i, sid in enumerate(IDS):
            if sid in NAN_X2:
                x[i, 1] = np.nan
        f["inputs"] = x
        f["inputs"].attrs["columns"] = ["A", "B", "C"]
        y = ids * 10.0
        for i, sid in enumerate(IDS):
            if sid in NAN_Y:
                y[i] = np.nan
        f["fields/result/y"] = y
        f["fields/traj"] = np.stack([ids * 1.0, ids * 2.0], axis=1)


class Reader(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "d.h5")
        make(self.path)

    def tearDown(self):
        for f in os.listdir(self.dir):
            os.remove(os.path.join(self.dir, f))
        os.rmdir(self.dir)

    def arrays(self, **kw):
        kw.setdefault("rank", 0)
        kw.setdefault("world_size", 1)
        kw.setdefault("targets", ["result/y"])
        return CollectedArrays(self.path, **kw)

    def test_committed_ok_rows_without_nan_in_sample_id_order(self):
        a = self.arrays(inputs=["A", "B"])
        # committed: ids 7 3 9 0 5 1 8 2 6 4; not ok: 9, 1; NaN in B: 5; NaN in y: 8
        self.assertEqual(list(a.sample_ids), [0, 2, 3, 4, 6, 7])
        self.assertEqual(a.x[:, 0].tolist(), [0, 2, 3, 4, 6, 7])
        self.assertEqual(a.y[:, 0].tolist(), [0, 20, 30, 40, 60, 70])
        self.assertEqual(a.x.dtype, np.float32)

    def test_nan_in_a_column_not_chosen_keeps_the_row(self):
        a = self.arrays(inputs=["A", "C"])
        self.assertIn(5, list(a.sample_ids))
        self.assertEqual(a.input_names, ["A", "C"])
        self.assertEqual(a.x[list(a.sample_ids).index(5)].tolist(), [5, -5])

    def test_split_is_seeded_disjoint_and_whole(self):
        all_ids = set(self.arrays(inputs=["A"]).sample_ids)
        for seed in (1, 2, 3):
            tr = self.arrays(inputs=["A"], split="train", val_fraction=0.3, seed=seed)
            va = self.arrays(inputs=["A"], split="val", val_fraction=0.3, seed=seed)
            self.assertEqual(len(va), round(len(all_ids) * 0.3))
            self.assertFalse(set(tr.sample_ids) & set(va.sample_ids))
            self.assertEqual(set(tr.sample_ids) | set(va.sample_ids), all_ids)
            again = self.arrays(inputs=["A"], split="val", val_fraction=0.3, seed=seed)
            self.assertEqual(list(again.sample_ids), list(va.sample_ids))

    def test_shards_partition_the_split_and_padding_evens_them(self):
        whole = self.arrays(inputs=["A"], split="train", val_fraction=0.2)
        shards = [self.arrays(inputs=["A"], split="train", val_fraction=0.2, rank=r, world_size=3)
                  for r in range(3)]
        got = sorted(i for s in shards for i in s.sample_ids)
        self.assertEqual(got, sorted(whole.sample_ids))
        self.assertLessEqual(max(map(len, shards)) - min(map(len, shards)), 1)
        self.assertTrue(all(s.total_rows == len(whole) for s in shards))
        padded = [self.arrays(inputs=["A"], split="train", val_fraction=0.2, rank=r, world_size=3,
                              padded=True) for r in range(3)]
        self.assertEqual({len(p) for p in padded}, {max(map(len, shards))})
        for s, p in zip(shards, padded):  # each shard's rows, then repeats of its own first rows
            self.assertEqual(list(p.sample_ids[: len(s)]), list(s.sample_ids))
            self.assertTrue(set(p.sample_ids) <= set(s.sample_ids))
            for sid, xv in zip(p.sample_ids, p.x[:, 0]):
                self.assertEqual(xv, sid)

    def test_rank_and_world_size_from_the_environment(self):
        os.environ.update(RANK="1", WORLD_SIZE="2")
        try:
            a = CollectedArrays(self.path, inputs=["A"], targets=["result/y"])
        finally:
            del os.environ["RANK"], os.environ["WORLD_SIZE"]
        self.assertEqual(list(a.sample_ids), [2, 4, 6])  # 0 2 3 4 6 7, every second from the 2nd

    def test_a_field_with_a_shape_is_flattened(self):
        a = self.arrays(inputs=["A"], targets=["result/y", "traj"])
        self.assertEqual(a.target_names, ["result/y", "traj[0]", "traj[1]"])
        self.assertEqual(a.y[1].tolist(), [20, 2, 4])

    def test_torch_dataset(self):
        ds = CollectedDataset(self.path, inputs=["A"], targets=["result/y"], rank=0, world_size=1)
        x, y = ds[1]
        self.assertEqual((x.tolist(), y.tolist()), ([2.0], [20.0]))
        self.assertEqual(len(ds), 7)  # NaN in B does not matter here: id 5 stays

    def test_read_index_is_the_committed_rows(self):
        ids, status, attrs = read_index(self.path)
        self.assertEqual(list(ids), IDS[:COMMITTED])
        self.assertEqual(list(status), STATUS[:COMMITTED])
        self.assertEqual(attrs["format"], "merlin-collect")

    def test_bad_input_is_named(self):
        other = os.path.join(self.dir, "other.h5")
        make(other, fmt="something-else")
        cases = [
            (lambda: CollectedArrays(other, targets=["result/y"]), "not a merlin collect file"),
            (lambda: self.arrays(inputs=["Z"]), "no input column 'Z'"),
            (lambda: self.arrays(targets=["nope"]), "no field 'nope'"),
            (lambda: self.arrays(targets=[]), "name at least one target"),
            (lambda: self.arrays(split="test"), "split must be"),
            (lambda: self.arrays(rank=2, world_size=2), "rank 2 is not in 0..1"),
        ]
        for call, words in cases:
            with self.assertRaises(ValueError) as e:
                call()
            self.assertIn(words, str(e.exception))


if __name__ == "__main__":
    unittest.main(verbosity=1)
