#!/usr/bin/env bash
# `merlin collect` keeps each field's type (docs/collect.md, "Types"): JSON integers int64,
# floats float64, booleans bool (uint8), strings variable-length; .npy float32 and int32 as
# they are; NaN, Infinity and -Infinity as Python's json.dump writes them; a mask
# (/missing/<field>) beside every field without NaN. A sample with an extra key, a missing
# key or a non-integer where the first sample had an integer is malformed, and says which.
# Every --compression (none, gzip:N, lz4) gives a file h5py reads (lz4 through Debian's
# hdf5-filter-plugin, skipped without it).
source "$(dirname "$0")/lib.sh"
set +e

need_python h5py numpy  # sets PY, or skips
ulimit -f 100000  # KB

seq 0 7 >samples.csv
cat >gen.py <<'P'
import json, sys, numpy as np
i = int(sys.argv[1])
r = {"n": i * 10, "x": i + 0.5, "flag": i % 2 == 0, "name": "s%d" % i,
     "v": [float("nan"), float("inf"), -float("inf"), i], "maybe": None if i == 2 else i}
if i == 4: r["k"] = 1               # an extra key
if i == 5: del r["x"]               # a missing key
if i == 6: r["n"] = 2.5             # not an integer, where sample 0 had one
if i == 7: r["n"] = 70.0            # an integral float: fine in int64
json.dump(r, open("result.json", "w"))
np.save("traj.npy", np.full((4, 4), i, dtype=np.float32))
np.save("counts.npy", np.arange(3, dtype=np.int32) + i)
P
cat >types.yaml <<Y
description: {name: types, description: outputs of several types}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: simulate
    run:
      cmd: $PY \$(SPECROOT)/gen.py \$(MERLIN_SAMPLE_ID)
merlin:
  samples:
    file: \$(SPECROOT)/samples.csv
    column_labels: [K]
Y
"$MERLIN" run --local --no-progress -j 2 types.yaml >run.out 2>&1
expect_eq "the study runs" 0 $?
ws=$(ls -d "$WORK"/studies/types_*)

"$MERLIN" collect "$ws" --step simulate -f result.json -f traj.npy -f counts.npy -o out.h5 \
  --no-progress >out.txt 2>err.txt
expect_eq "three malformed samples: exit 1" 1 $?
check "sample 4: an extra key, named" grep -q "sample 4 .*an extra key 'k'" err.txt
check "sample 5: a missing key, named" grep -q "sample 5 .*a missing key 'x'" err.txt
check "sample 6: not an integer, said so" grep -q "sample 6 .*holds 2.5, not an integer" err.txt
check "Python's NaN and Infinity are not malformed" bash -c "! grep -q 'not valid JSON' err.txt"

"$PY" - out.h5 >types.txt 2>&1 <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
o = np.argsort(f["sample_ids"][()])
F = lambda n: f["fields/" + n]
def line(*a): print(*a)
for name in ["result/n", "result/x", "result/flag", "result/name", "result/v", "result/maybe",
             "traj", "counts"]:
    d = F(name)
    kind = "str" if h5py.check_string_dtype(d.dtype) else str(d.dtype)
    line(name, kind, d.attrs["dtype"], "mask" if ("missing/" + name) in f else "nomask")
line("status", "".join(str(s) for s in f["status"][()][o]))
line("nvalues", list(F("result/n")[()][o]))
line("n missing", list(f["missing/result/n"][()][o]))
line("maybe missing", list(f["missing/result/maybe"][()][o]))
line("flag", list(F("result/flag")[()][o]))
line("name", [s.decode() for s in F("result/name")[()][o]])
v = F("result/v")[()][o][0]
line("v0", np.isnan(v[0]), v[1], v[2], v[3])
line("npy traj", F("traj")[()][o][3][0][0], "counts", list(F("counts")[()][o][1]))
line("x row 4", np.isnan(F("result/x")[()][o][4]))
PY
cat types.txt
expect_eq "int64 from JSON integers" "result/n int64 int64 mask" "$(grep '^result/n ' types.txt)"
expect_eq "float64 from JSON floats" "result/x float64 float64 nomask" "$(grep '^result/x ' types.txt)"
expect_eq "bool as uint8" "result/flag uint8 bool mask" "$(grep '^result/flag ' types.txt)"
expect_eq "strings as h5py strings" "result/name str string mask" "$(grep '^result/name ' types.txt)"
expect_eq "NaN and Infinity make float64" "result/v float64 float64 nomask" "$(grep '^result/v ' types.txt)"
expect_eq "an integer with a null: int64 and its mask" "result/maybe int64 int64 mask" "$(grep '^result/maybe ' types.txt)"
expect_eq ".npy float32 stays float32" "traj float32 float32 nomask" "$(grep '^traj ' types.txt)"
expect_eq ".npy int32 stays int32" "counts int32 int32 mask" "$(grep '^counts ' types.txt)"
expect_eq "statuses" "status 11113331" "$(grep '^status' types.txt)"
expect_eq "int64 values; 70.0 went in as 70" "nvalues [0, 10, 20, 30, 0, 0, 0, 70]" "$(grep '^nvalues' types.txt)"
expect_eq "the mask marks the malformed rows" "n missing [0, 0, 0, 0, 1, 1, 1, 0]" "$(grep '^n missing' types.txt)"
expect_eq "the mask marks a null" "maybe missing [0, 0, 1, 0, 1, 1, 1, 0]" "$(grep '^maybe missing' types.txt)"
expect_eq "booleans" "flag [1, 0, 1, 0, 0, 0, 0, 0]" "$(grep '^flag' types.txt)"
expect_eq "strings" "name ['s0', 's1', 's2', 's3', '', '', '', 's7']" "$(grep '^name' types.txt)"
expect_eq "NaN, Infinity, -Infinity" "v0 True inf -inf 0.0" "$(grep '^v0' types.txt)"
expect_eq ".npy values" "npy traj 3.0 counts [1, 2, 3]" "$(grep '^npy traj' types.txt)"
expect_eq "a float field's malformed row is NaN" "x row 4 True" "$(grep '^x row 4' types.txt)"

# Appending keeps the file's types: collecting again appends nothing, and opens it fine.
"$MERLIN" collect "$ws" --step simulate -f result.json -f traj.npy -f counts.npy -o out.h5 \
  --no-progress >/dev/null 2>again.txt
check "collecting again: the typed file is appended to" grep -q "0 rows appended to out.h5" again.txt

# Every compression gives the same values.
plugins=$(dpkg -L hdf5-filter-plugin 2>/dev/null | grep -m1 'libh5lz4.so$' | xargs -r dirname)
for c in none gzip:1 gzip:9 lz4; do
  if [ "$c" = lz4 ] && [ -z "$plugins" ]; then
    echo "skip lz4: no hdf5-filter-plugin (apt-get install hdf5-filter-plugin)"
    continue
  fi
  rm -f c.h5
  "$MERLIN" collect "$ws" --step simulate -f result.json -f traj.npy -f counts.npy -o c.h5 \
    --no-progress --compression $c >/dev/null 2>c.err
  expect_eq "--compression $c: exit 1 (the three malformed samples)" 1 $?
  got=$(HDF5_PLUGIN_PATH=$plugins "$PY" - c.h5 out.h5 <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
oa, ob = np.argsort(a["sample_ids"][()]), np.argsort(b["sample_ids"][()])
same = all(np.array_equal(a["fields/" + n][()][oa], b["fields/" + n][()][ob],
                          equal_nan=a["fields/" + n].dtype.kind == "f")
           for n in ["traj", "counts", "result/n", "result/flag"])
print("same" if same else "differ", a["fields/traj"].compression or a["fields/traj"]._filters)
PY
)
  check "--compression $c: the values read back ($got)" test "${got%% *}" = same
done
"$MERLIN" collect "$ws" --step simulate -f result.json -o z.h5 --compression zstd --no-progress 2>z.err
expect_eq "--compression zstd: refused (exit 2)" 2 $?
check "--compression zstd: says why" grep -q "no zstd filter" z.err
finish
