#!/usr/bin/env bash
# merlin_dataset, the Python reader of collect files that training code imports (issue 27 §2),
# against a file made row by row (merlin_dataset/reader_test.py), then against a real collect
# file: its rows are what h5py reads with the documented recipe (docs/collect.md).
source "$(dirname "$0")/lib.sh"
set +e
need_python h5py numpy torch
export PYTHONPATH=$(dirname "$MERLIN")/python
"$PY" "$SRC/tests/integration/merlin_dataset/reader_test.py" >unit.out 2>&1
rc=$?
expect_eq "reader_test.py: every case passes" 0 $rc
[ $rc = 0 ] || cat unit.out
check "... and it ran them all" grep -q "^Ran 9 tests" unit.out

# A real collect file: 30 samples, one failed.
cat >s.yaml <<'Y'
description: {name: ds, description: a small dataset}
study:
  - name: sim
    description: y = 3x, sample 4 fails
    run:
      cmd: |
        [ $(MERLIN_SAMPLE_ID) = 4 ] && exit 1
        echo "{\"y\": $(python3 -c 'print(3 * $(X))')}" > out.json
merlin:
  samples:
    generate: {cmd: "merlin sample -n 30 -m uniform -s 3 -c X=0:1 -o $(MERLIN_INFO)/s.csv"}
    file: $(MERLIN_INFO)/s.csv
    column_labels: [X]
Y
"$MERLIN" run --local --no-progress s.yaml >run.out 2>&1
ws=$(ls -d ds_*)
"$MERLIN" collect "$ws" --step sim --file out.json -o d.h5 --no-progress >collect.out 2>&1
expect_eq "collect: 29 rows ok, 1 failed" "29 1" \
  "$("$PY" -c "import h5py, numpy as np; f = h5py.File('d.h5'); s = f['status'][:int(f.attrs['rows_committed'])]; print((s == 1).sum(), (s == 2).sum())")"
expect_eq "the reader's rows are the ok rows in sample-id order, y = 3x" "29 True True" "$("$PY" - <<'PYEOF'
import h5py, numpy as np
from merlin_dataset import CollectedArrays
a = CollectedArrays("d.h5", inputs=["X"], targets=["out/y"], rank=0, world_size=1)
with h5py.File("d.h5") as f:
    n = int(f.attrs["rows_committed"])
    ok = f["status"][:n] == 1
    ids = np.sort(f["sample_ids"][:n][ok])
print(len(a), list(a.sample_ids) == list(ids), bool(np.allclose(a.y[:, 0], 3 * a.x[:, 0], atol=1e-5)))
PYEOF
)"
finish
