#!/usr/bin/env bash
# The fields of a new `merlin collect` file come from a rule, not from thread timing (issue #25,
# item 4): the lowest sample id whose files all read. Samples 0-32 write a large JSON that does
# not parse into numbers (slow to read), sample 33 and every fourth after it write a 3-array,
# the others a 2-array. Whatever the reader threads (1, 2, 4, 8) and however often it is run,
# the file has shape (256, 3), 56 ok rows (33, 37, ..., 253), and the same status column.
source "$(dirname "$0")/lib.sh"
set +e

need_python h5py numpy  # sets PY, or skips
ulimit -f 100000  # KB: the study writes about 7 MB

seq 0 255 >samples.csv
cat >schema.yaml <<'Y'
description: {name: schema, description: two shapes of result.json}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: simulate
    run:
      cmd: |
        id=$(MERLIN_SAMPLE_ID)
        if [ $id -le 32 ]; then
          { printf '['; yes '0,' | head -n 100000 | tr -d '\n'; printf '"not a number"]\n'; } > result.json
        elif [ $((id % 4)) -eq 1 ]; then
          printf '[%s, 1, 2]\n' $id > result.json
        else
          printf '[%s, 1]\n' $id > result.json
        fi
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [K]
Y
"$MERLIN" run --local --no-progress -j 2 schema.yaml >run.out 2>&1
expect_eq "the study runs" 0 $?
ws=$(ls -d "$WORK"/studies/schema_*)

shape_of() {
  "$PY" - "$1" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    d, st, ids = f["fields/result"], f["status"][()], f["sample_ids"][()]
    by_id = st[np.argsort(ids)]
    print(d.shape, int((st == 1).sum()), "ok", "".join(str(s) for s in by_id))
PY
}
want=""
for rep in 1 2; do
  for j in 1 2 4 8; do
    rm -f out.h5
    "$MERLIN" collect "$ws" --step simulate -f result.json -o out.h5 -j $j --no-progress >/dev/null 2>err.txt
    got=$(shape_of out.h5)
    [ -n "$want" ] || want=$got
    expect_eq "-j $j, run $rep: the schema of sample 33 (the lowest id that reads)" "(256, 3) 56 ok" "${got% *}"
    expect_eq "-j $j, run $rep: the same statuses as every other run" "$want" "$got"
  done
done
finish
